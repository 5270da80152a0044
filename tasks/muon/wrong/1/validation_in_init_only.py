# wrong: groups are validated in __init__ only, so a bad group added later with add_param_group is accepted
class Muon:
    def __init__(self, params, lr=1e-3, weight_decay=0.1, momentum=0.95, nesterov=True, ns_steps=5, rms_scale=0.2,
                 betas=(0.9, 0.95), eps=1e-8):
        defaults = dict(lr=lr, weight_decay=weight_decay, momentum=momentum, nesterov=nesterov,
                        ns_steps=ns_steps, rms_scale=rms_scale, betas=tuple(betas), eps=eps)
        self._check_hyperparameters(defaults)
        super().__init__(params, defaults)
        for group in self.param_groups:
            if not isinstance(group.get("use_muon"), bool):
                raise ValueError("every parameter group needs a bool 'use_muon'")
            self._check_hyperparameters(group)
            if group["use_muon"] and any(p.ndim != 2 for p in group["params"]):
                raise ValueError("Muon updates 2-D parameters only")

    def add_param_group(self, param_group):
        torch.optim.Optimizer.add_param_group(self, param_group)
