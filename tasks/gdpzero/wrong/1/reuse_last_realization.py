# WRONG: once k realizations exist, always reuses the last one instead of cycling through them.
class OpenLoopMCTS:
    def simulate(self, root: Node, root_state: DialogueState) -> float:
        """Run one simulation from ``root`` (whose dialogue state is ``root_state``); return the leaf value.

        Descend from the root. At a node with realised state s and depth d (the root has depth 0):
          1. if s is terminal, or d == max_depth, the leaf value is ``sim.value(s)``; stop;
          2. if the node is not expanded, ``expand`` it with s; the leaf value is ``sim.value(s)``; stop;
          3. otherwise take a = ``select_action(node)``, create the child for a if needed, and realise the
             child's state (open loop): with i = N(s, a) before this simulation, if i < max_realizations,
             s' = ``sim.respond(s, a, sample=i)`` is appended to the child's ``realizations``; otherwise
             s' = child.realizations[i % max_realizations] is reused. Continue at the child with s'.
        Then back the leaf value v up every (node, act) on the path: N(s, a) += 1 and
        Q(s, a) += (v - Q(s, a)) / N(s, a) (a running mean, no discount; the first update sets Q = v).
        The root's own state is never stored in ``root.realizations``.
        """
        node, state, depth = root, root_state, 0
        path: list[tuple[Node, str]] = []
        while True:
            if self.sim.is_terminal(state) or depth == self.max_depth:
                value = self.sim.value(state)
                break
            if not node.expanded:
                self.expand(node, state)
                value = self.sim.value(state)
                break
            act = self.select_action(node)
            child = node.children.setdefault(act, Node())
            i = node.visits[act]
            if i < self.max_realizations:
                state = self.sim.respond(state, act, sample=i)
                child.realizations.append(state)
            else:
                state = child.realizations[-1]
            path.append((node, act))
            node, depth = child, depth + 1
        for parent, act in reversed(path):
            parent.visits[act] += 1
            parent.q[act] += (value - parent.q[act]) / parent.visits[act]
        return value
