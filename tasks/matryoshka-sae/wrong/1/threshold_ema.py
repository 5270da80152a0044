# Wrong: the threshold is an exponential moving average (decay 0.99) instead of the mean over batches.
class MatryoshkaSAE:
    @torch.no_grad()
    def update_statistics(self, features):
        active = features > 0
        self.batches_since_fired.add_(1).masked_fill_(active.any(dim=0), 0)
        if bool(active.any()):
            smallest = features[active].min()
            self.threshold_batches.add_(1)
            if int(self.threshold_batches) == 1:
                self.threshold.copy_(smallest)
            else:
                self.threshold.mul_(0.99).add_(0.01 * smallest)
