# WRONG: uses B A (plain LoRA) and forgets the singular values E between them.
class SVDLinear:
    def forward(self, x):
        weight = self.weight.T if self.fan_in_fan_out else self.weight
        result = F.linear(x, weight, self.bias)
        if self.r > 0:
            update = self.lora_dropout(x) @ self.lora_A.T @ self.lora_B.T
            result = result + update * self.scaling / (self.ranknum + RANKNUM_EPS)
        return result
