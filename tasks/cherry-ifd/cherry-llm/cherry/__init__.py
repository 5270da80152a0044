"""Cherry data selection with the Instruction-Following Difficulty (IFD) score, at toy scale."""
