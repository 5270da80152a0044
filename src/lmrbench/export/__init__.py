"""`lmrbench export`: the tasks as a Hugging Face style dataset (parquet files and a dataset card)."""

from lmrbench.export.hf import ExportResult, write_dataset
from lmrbench.export.rows import DatasetRow, dataset_rows

__all__ = ["DatasetRow", "ExportResult", "dataset_rows", "write_dataset"]
