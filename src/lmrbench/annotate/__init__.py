"""Human annotation of a run's predictions in the browser (`lmrbench annotate`), into RUN_DIR/labels.jsonl."""

from lmrbench.annotate.items import Item, RunFolderError, load_items
from lmrbench.annotate.labels import append_label, labels_path, read_labels
from lmrbench.annotate.server import AnnotateConfig, Session, annotation_session, make_server

__all__ = ["AnnotateConfig", "Item", "RunFolderError", "Session", "annotation_session", "append_label", "labels_path",
           "load_items", "make_server", "read_labels"]
