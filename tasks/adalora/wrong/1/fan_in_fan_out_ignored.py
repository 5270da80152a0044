# WRONG: ignores fan_in_fan_out -- uses the stored weight as (out, in) even when it is stored transposed.
class SVDLinear:
    def forward(self, x):
        result = F.linear(x, self.weight, self.bias)
        if self.r > 0:
            update = self.lora_dropout(x) @ (self.lora_A * self.lora_E).T @ self.lora_B.T
            result = result + update * self.scaling / (self.ranknum + RANKNUM_EPS)
        return result
