# Wrong: batches_since_fired counts every batch without a firing but is never reset when the latent fires.
class MatryoshkaSAE:
    @torch.no_grad()
    def update_statistics(self, features):
        active = features > 0
        self.batches_since_fired.add_((~active.any(dim=0)).to(torch.int64))
        if bool(active.any()):
            smallest = features[active].min()
            self.threshold_batches.add_(1)
            self.threshold.add_((smallest - self.threshold) / self.threshold_batches)
