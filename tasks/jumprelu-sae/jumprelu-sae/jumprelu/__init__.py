"""JumpReLU sparse autoencoders trained on (synthetic) language-model activations."""
