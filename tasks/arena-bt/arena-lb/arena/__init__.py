"""arena-lb: a leaderboard from pairwise human votes between anonymous chat models."""
