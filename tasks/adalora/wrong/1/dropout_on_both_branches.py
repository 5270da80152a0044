# WRONG: dropout is applied to the input of the frozen branch too, not only to the adapter branch.
class SVDLinear:
    def forward(self, x):
        x = self.lora_dropout(x)
        weight = self.weight.T if self.fan_in_fan_out else self.weight
        result = F.linear(x, weight, self.bias)
        if self.r > 0:
            update = x @ (self.lora_A * self.lora_E).T @ self.lora_B.T
            result = result + update * self.scaling / (self.ranknum + RANKNUM_EPS)
        return result
