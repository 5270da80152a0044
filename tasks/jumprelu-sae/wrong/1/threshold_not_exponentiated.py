# Wrong: the threshold read as log_threshold itself, ignoring the log parameterisation.
class JumpReLUSAE(nn.Module):
    @property
    def threshold(self):
        return self.log_threshold
