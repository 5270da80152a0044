"""A toy census table (the kind of tabular data the paper obfuscates feature by feature)."""

from __future__ import annotations

import pandas as pd

COLUMNS = ["age", "workclass", "education", "marital-status", "occupation", "sex", "hours-per-week",
           "native-country", "income"]

ROWS = [
    (39, "State-gov", "Bachelors", "Never-married", "Adm-clerical", "Male", 40, "United-States", "no"),
    (50, "Self-emp-not-inc", "Bachelors", "Married-civ-spouse", "Exec-managerial", "Male", 13, "United-States", "no"),
    (38, "Private", "HS-grad", "Divorced", "Handlers-cleaners", "Male", 40, "United-States", "no"),
    (53, "Private", "11th", "Married-civ-spouse", "Handlers-cleaners", "Male", 40, "United-States", "no"),
    (28, "Private", "Bachelors", "Married-civ-spouse", "Prof-specialty", "Female", 40, "Cuba", "no"),
    (37, "Private", "Masters", "Married-civ-spouse", "Exec-managerial", "Female", 40, "United-States", "no"),
    (49, "Private", "9th", "Married-spouse-absent", "Other-service", "Female", 16, "Jamaica", "no"),
    (52, "Self-emp-not-inc", "HS-grad", "Married-civ-spouse", "Exec-managerial", "Male", 45, "United-States", "yes"),
    (31, "Private", "Masters", "Never-married", "Prof-specialty", "Female", 50, "United-States", "yes"),
    (42, "Private", "Bachelors", "Married-civ-spouse", "Exec-managerial", "Male", 40, "United-States", "yes"),
    (37, "Private", "Some-college", "Married-civ-spouse", "Exec-managerial", "Male", 80, "United-States", "yes"),
    (30, "State-gov", "Bachelors", "Married-civ-spouse", "Prof-specialty", "Male", 40, "India", "yes"),
]

TARGET = "income"


def census_table() -> pd.DataFrame:
    return pd.DataFrame(ROWS, columns=COLUMNS)
