"""Privacy evaluation of emoji-based prompt obfuscation."""
