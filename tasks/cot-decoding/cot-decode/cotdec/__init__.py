"""CoT-decoding: branch at the first decoding step, continue greedily, and trust the path whose answer the model
is most confident about."""
