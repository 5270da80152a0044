# wrong: lambda of Eq. (2) without the lambda_init term
class DiffAttention:
    def lambda_value(self):
        return torch.exp(torch.dot(self.lambda_q1, self.lambda_k1)) - torch.exp(torch.dot(self.lambda_q2, self.lambda_k2))
