# wrong: questions paired by row position instead of by question id
def align(a, b):
    if set(b.question_ids) != set(a.question_ids):
        raise ValueError("the two tables do not hold the same questions")
    return np.arange(b.n_questions)
