# Wrong: the threshold averages the mean kept activation of each batch, not the smallest one.
class MatryoshkaSAE:
    @torch.no_grad()
    def update_statistics(self, features):
        active = features > 0
        self.batches_since_fired.add_(1).masked_fill_(active.any(dim=0), 0)
        if bool(active.any()):
            value = features[active].mean()
            self.threshold_batches.add_(1)
            self.threshold.add_((value - self.threshold) / self.threshold_batches)
