# WRONG: uses sqrt(N(s)) without max(., 1): at a fresh node the exploration term vanishes and the first act wins.
class OpenLoopMCTS:
    def select_action(self, node: Node) -> str:
        """The PUCT choice at an expanded node.

        score(a) = Q'(a) + c_puct * P(s, a) * sqrt(max(N(s), 1)) / (1 + N(s, a)),   N(s) = sum_b N(s, b),

        where Q'(a) = Q(s, a) if N(s, a) > 0 and Q'(a) = q0 for an act never taken. (The max(., 1)
        makes the first choice at a fresh node follow the prior instead of being a tie.) Acts are
        scored in the order of ``self.sim.acts``; on an exact tie the earliest act wins.
        """
        total = sum(node.visits[a] for a in self.sim.acts)
        explore = self.c_puct * math.sqrt(total)
        best, best_score = None, -math.inf
        for a in self.sim.acts:
            n = node.visits[a]
            q = node.q[a] if n > 0 else self.q0
            score = q + explore * node.prior[a] / (1 + n)
            if score > best_score:
                best, best_score = a, score
        assert best is not None
        return best
