# wrong: lambda computed as a Python number, so no gradient reaches the four lambda vectors
class DiffAttention:
    def lambda_value(self):
        lam = (math.exp(float(self.lambda_q1 @ self.lambda_k1)) - math.exp(float(self.lambda_q2 @ self.lambda_k2))
               + self.lambda_init)
        return torch.tensor(lam, dtype=self.lambda_q1.dtype)
