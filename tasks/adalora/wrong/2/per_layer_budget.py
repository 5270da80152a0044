# WRONG: prunes each layer separately to budget / n_layers triplets instead of ranking all triplets globally.
class RankAllocator:
    @torch.no_grad()
    def update_ipt(self, model):
        for name, param in lora_parameters(model):
            if param.grad is None:
                continue
            if name not in self.ipt:
                self.exp_avg_ipt[name] = torch.zeros_like(param)
                self.exp_avg_unc[name] = torch.zeros_like(param)
            ipt = (param * param.grad).abs().detach()
            self.ipt[name] = ipt
            self.exp_avg_ipt[name] = self.beta1 * self.exp_avg_ipt[name] + (1 - self.beta1) * ipt
            self.exp_avg_unc[name] = self.beta2 * self.exp_avg_unc[name] + (1 - self.beta2) * (
                ipt - self.exp_avg_ipt[name]
            ).abs()

    @torch.no_grad()
    def mask_to_budget(self, model, budget):
        layers = list(svd_layers(model))
        total = sum(module.r for _, module in layers)
        if budget >= total:
            return None
        per_layer = budget // len(layers)
        threshold = None
        for name, module in layers:
            s_a = self.exp_avg_ipt[f"{name}.lora_A"] * self.exp_avg_unc[f"{name}.lora_A"]
            s_e = self.exp_avg_ipt[f"{name}.lora_E"] * self.exp_avg_unc[f"{name}.lora_E"]
            s_b = self.exp_avg_ipt[f"{name}.lora_B"] * self.exp_avg_unc[f"{name}.lora_B"]
            score = s_e.view(-1) + s_a.mean(dim=1) + s_b.mean(dim=0)
            n_prune = score.numel() - per_layer
            if n_prune <= 0:
                continue
            layer_threshold = torch.kthvalue(score, n_prune).values
            module.lora_E.masked_fill_((score <= layer_threshold).view(-1, 1), 0.0)
            threshold = float(layer_threshold)
        return threshold
