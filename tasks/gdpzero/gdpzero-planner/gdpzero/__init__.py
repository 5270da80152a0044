"""Open-loop MCTS dialogue policy planning (GDP-Zero style) with a scripted persuasion simulator."""
