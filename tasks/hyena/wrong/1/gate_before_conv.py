# Wrong: gates before convolving: z^{n+1} = h^n * (x^n z^n) + bias^n x^n z^n instead of x^n (h^n * z^n + bias^n z^n).
def fft_causal_conv(u: Tensor, h: Tensor) -> Tensor:
    seq_len = u.shape[-1]
    n = seq_len + h.shape[1]
    u_f = torch.fft.rfft(u, n=n)
    h_f = torch.fft.rfft(h, n=n)
    y = torch.fft.irfft(u_f * h_f, n=n)[..., :seq_len]
    return y.to(u.dtype)


class HyenaOperator:
    def forward(self, u: Tensor) -> Tensor:
        seq_len = u.shape[1]
        z = self.in_proj(u).transpose(1, 2)
        z = self.short_filter(z)[..., :seq_len]
        v, *gates = z.split(self.d_model, dim=1)
        h, bias = self.filter(seq_len)
        for n, x in enumerate(gates):
            v = x * v
            v = fft_causal_conv(v, h[n]) + bias[n, :, None] * v
        return self.out_proj(v.transpose(1, 2))
