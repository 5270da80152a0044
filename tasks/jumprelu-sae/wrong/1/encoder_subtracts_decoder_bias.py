# Wrong: the encoder sees x - b_dec (a common SAE variant), not x as in Eq. (5).
class JumpReLUSAE(nn.Module):
    def encode(self, x):
        pre_activations = (x - self.b_dec) @ self.W_enc + self.b_enc
        features = JumpReLU.apply(pre_activations, self.threshold, self.bandwidth)
        return pre_activations, features
