# wrong: question scores averaged over every column of the padded table, padding included (mask ignored)
def question_scores(table):
    return table.scores.mean(axis=1)
