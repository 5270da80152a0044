"""BERTScore on a tiny, seeded contextual encoder."""

from bertscore.tokenizer import CLS_ID, PAD_ID, SEP_ID, SPECIAL_IDS, UNK_ID, WordTokenizer

__all__ = ["CLS_ID", "PAD_ID", "SEP_ID", "SPECIAL_IDS", "UNK_ID", "WordTokenizer"]
