# WRONG: the uncertainty compares I with the PREVIOUS smoothed sensitivity (I_bar updated afterwards).
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
            self.exp_avg_unc[name] = self.beta2 * self.exp_avg_unc[name] + (1 - self.beta2) * (
                ipt - self.exp_avg_ipt[name]
            ).abs()
            self.exp_avg_ipt[name] = self.beta1 * self.exp_avg_ipt[name] + (1 - self.beta1) * ipt

    @torch.no_grad()
    def mask_to_budget(self, model, budget):
        scores = {}
        for name, _ in svd_layers(model):
            s_a = self.exp_avg_ipt[f"{name}.lora_A"] * self.exp_avg_unc[f"{name}.lora_A"]
            s_e = self.exp_avg_ipt[f"{name}.lora_E"] * self.exp_avg_unc[f"{name}.lora_E"]
            s_b = self.exp_avg_ipt[f"{name}.lora_B"] * self.exp_avg_unc[f"{name}.lora_B"]
            scores[name] = s_e.view(-1) + s_a.mean(dim=1) + s_b.mean(dim=0)
        all_scores = torch.cat(list(scores.values()))
        n_prune = all_scores.numel() - budget
        if n_prune <= 0:
            return None
        threshold = torch.kthvalue(all_scores, n_prune).values
        for name, module in svd_layers(model):
            module.lora_E.masked_fill_((scores[name] <= threshold).view(-1, 1), 0.0)
        return float(threshold)
