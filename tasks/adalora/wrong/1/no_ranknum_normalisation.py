# WRONG: plain LoRA scaling -- multiplies by `scaling` but never divides by (ranknum + eps).
class SVDLinear:
    def forward(self, x):
        weight = self.weight.T if self.fan_in_fan_out else self.weight
        result = F.linear(x, weight, self.bias)
        if self.r > 0:
            update = self.lora_dropout(x) @ (self.lora_A * self.lora_E).T @ self.lora_B.T
            result = result + update * self.scaling
        return result
