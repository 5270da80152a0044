# wrong: plain online gradient descent with decay (momentum ignored): M_t = (1 - alpha_t) M_{t-1} - theta_t grad
def sequential_update(weights: list[torch.Tensor], momentum: list[torch.Tensor], k: torch.Tensor, v: torch.Tensor,
                      alpha: torch.Tensor, eta: torch.Tensor, theta: torch.Tensor
                      ) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
    """The memory update of Section 3.1, one token at a time.

    Args:
        weights: memory weights before the first token, one tensor (B, d_in, d_out) per matrix.
        momentum: the surprise momentum before the first token, tensors of the same shapes as `weights`.
        k, v: keys (B, T, d_key) and values (B, T, d_value) of the tokens.
        alpha, eta, theta: forgetting gate, momentum decay and inner learning rate of each token, each (B, T).

    Returns:
        (states, momenta): per weight matrix, tensors of shape (B, T, d_in, d_out); index t holds the memory
        weights and the momentum after token t has been written. Differentiable with respect to every input.
    """
    T = k.shape[1]
    w, s = list(weights), list(momentum)
    states, momenta = [[] for _ in w], [[] for _ in w]
    for t in range(T):
        g = token_gradients(w, k[:, t:t + 1], v[:, t:t + 1])
        a, e, th = (x[:, t, None, None] for x in (alpha, eta, theta))
        for i in range(len(w)):
            s[i] = -th * g[i][:, 0]
            w[i] = (1 - a) * w[i] + s[i]
            states[i].append(w[i])
            momenta[i].append(s[i])
    return [torch.stack(x, 1) for x in states], [torch.stack(x, 1) for x in momenta]
