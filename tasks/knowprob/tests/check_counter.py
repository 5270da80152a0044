"""Trusted checks for knowprob/3 (never enter the sandbox): hand-checked values and the procedure's properties,
on the outputs probe_counter.py emitted. The default comparison with the reference's outputs has already
passed."""

from lmrbench.checks import check, equal, expect

NEW_COLUMNS = ["counter_object", "counter_prompt"]


def items(out, key):
    """The elements of an emitted list (the probe runner flattens a list to `key.0`, `key.1`, ...)."""
    marker = out.get(key)
    expect(isinstance(marker, tuple) and marker[0] == "seq", f"{key}: not a list")
    return [out[f"{key}.{i}"] for i in range(marker[1])]


def column(out, prefix, name):
    return items(out, f"{prefix}values.{name}")


def normalize_entity(name) -> str:
    """knowprob.text.normalize_entity: whitespace runs collapsed to one space, stripped, case-folded."""
    return " ".join(str(name).split()).casefold()


def check_counter(out, prefix=""):
    """The old `_check`: a DataFrame, the input's columns plus the two new ones, and the kept rows equal to the
    input's rows with those labels (the kept labels and new values themselves are compared with the reference's)."""
    inp, res = f"{prefix}input.", f"{prefix}output."
    equal(out[f"{res}is_frame"], True, what="returns a DataFrame")
    columns = items(out, f"{inp}columns")
    equal(items(out, f"{res}columns"), columns + NEW_COLUMNS, what="columns")
    labels, kept = items(out, f"{inp}index"), items(out, f"{res}index")
    equal(out[f"{res}index_dtype"], out[f"{inp}index_dtype"], what="index dtype")
    for name in columns:
        equal(out[f"{res}dtypes.{name}"], out[f"{inp}dtypes.{name}"], what=f"dtype of {name}")
        values = dict(zip(labels, column(out, inp, name), strict=True))
        equal(column(out, res, name), [values[k] for k in kept], what=f"kept rows, column {name}")


def same_frame(out, a: str, b: str) -> None:
    keys_a = sorted(k[len(a):] for k in out if k.startswith(a))
    equal(keys_a, sorted(k[len(b):] for k in out if k.startswith(b)), what=f"{a} and {b}: keys")
    for k in keys_a:
        equal(out[b + k], out[a + k], what=f"{b}{k}")


@check("matches_reference_on_random_tables")
def matches_reference_on_random_tables(out, ref):
    n = ref["n_tables"]
    expect(n >= 20, f"only {n} fixture tables")
    for i in range(n):
        check_counter(out, f"t{i}.")


@check("default_templates_are_the_repository_templates")
def default_templates_are_the_repository_templates(out, ref):
    check_counter(out)
    # the relation with a single distinct object (P176) has no counter object
    expect("P176" not in column(out, "output.", "relation"), "a row of P176 (one distinct object) is kept")


@check("hand_checked_two_object_relation")
def hand_checked_two_object_relation(out, ref):
    # With two distinct objects per relation every row has exactly one candidate (the other
    # object), whatever the random draw; the prompt is statement(o_c) + " " + query.
    equal(items(out, "index"), ["a", "b", "c", "d"], what="index")
    equal(column(out, "", "counter_object"), ["Rome", "Paris", "Greek", "Latin"], what="counter objects")
    equal(column(out, "", "counter_prompt"), [
        "Ann lives in Rome. Ann lives in",
        "Bob lives in Paris. Bob lives in",
        "Cid speaks Greek. Cid speaks",
        "Dee speaks Latin. Dee speaks",
    ], what="counter prompts")


@check("objects_compared_after_normalisation")
def objects_compared_after_normalisation(out, ref):
    # "paris " and "Paris" are the same entity: they can never replace each other.
    for seed in range(10):
        objects = column(out, f"seed{seed}.", "counter_object")
        equal(objects[:2], ["Rome", "Rome"], what=f"seed {seed}: counter objects of the Paris rows")
        expect(len(objects) == 3 and objects[2] in {"Paris", "paris "}, f"seed {seed}: counter object of Rome")
    # a relation whose objects are all the same entity yields no row
    equal(items(out, "same_entity.output.index"), [], what="rows of a one-entity relation")
    equal(items(out, "same_entity.output.columns"), items(out, "same_entity.input.columns") + NEW_COLUMNS,
          what="columns")


@check("properties_same_relation_different_object_deterministic")
def properties_same_relation_different_object_deterministic(out, ref):
    equal(items(out, "seed7.index"), items(ref, "input_index"), what="index (every relation has >= 2 objects)")
    objects = {r: items(ref, f"objects.{r}") for r in ("R1", "R2", "R3")}
    rows = zip(column(out, "seed7.", "relation"), column(out, "seed7.", "parametric_object"),
               column(out, "seed7.", "counter_object"), strict=True)
    for relation, parametric, counter in rows:
        expect(counter in objects[relation], f"{counter!r} is not an object of {relation}")
        expect(normalize_entity(counter) != normalize_entity(parametric), f"{counter!r} is the parametric object")
    same_frame(out, "seed7.", "seed7_again.")
    expect(column(out, "seed8.", "counter_object") != column(out, "seed7.", "counter_object"),
           "another seed gives the same counter objects")


@check("each_kept_row_draws_exactly_once_in_row_order")
def each_kept_row_draws_exactly_once_in_row_order(out, ref):
    # Rows of a relation with one object are dropped without consuming a random number, so
    # removing them does not change the other rows' counter objects.
    expect("SOLO" not in column(out, "mixed.", "relation"), "a row of the one-object relation is kept")
    plain = column(out, "plain.", "counter_object")
    equal(column(out, "mixed.", "counter_object"), plain, what="counter objects with the one-object rows")
    # the draws follow the row order: reversing the rows changes the assignment
    labels = items(ref, "input_index")
    equal(items(out, "reversed.index"), labels[::-1], what="index of the reversed table")
    rev = dict(zip(items(out, "reversed.index"), column(out, "reversed.", "counter_object"), strict=True))
    expect([rev[k] for k in labels] != plain, "reversing the rows does not change the assignment")


@check("repository_templates_used_for_prompts")
def repository_templates_used_for_prompts(out, ref):
    equal(out["template_P19"], "{subject} was born in {object}.", what="TEMPLATES['P19']")
    equal(column(out, "output.", "counter_prompt"), ["Kestin was born in Marnu. Kestin was born in",
                                                     "Dosel was born in Valor. Dosel was born in"],
          what="counter prompts")


@check("custom_column_names")
def custom_column_names(out, ref):
    equal(column(out, "", "counter_object"), ["Y", "X"], what="counter objects")
    equal(column(out, "", "counter_prompt"), ["A is in Y. A is in", "B is in X. B is in"], what="counter prompts")
