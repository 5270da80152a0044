"""A toy evaluation set: references and the outputs of two systems on the same inputs."""

REFERENCES = [
    "the cat sat on the mat .",
    "a man is playing a guitar on the street .",
    "the weather will be sunny tomorrow .",
    "she bought fresh bread at the market .",
    "the train to paris leaves at noon .",
    "children are playing football in the park .",
    "he forgot his keys at the office .",
    "the museum opens early on sunday .",
]

# A fairly good system: paraphrases and small word changes.
SYSTEM_A = [
    "the cat was sitting on the mat .",
    "a man plays the guitar in the street .",
    "tomorrow the weather will be sunny .",
    "she bought bread at the market .",
    "the train for paris leaves at noon .",
    "kids are playing football in the park .",
    "he left his keys at the office .",
    "the museum opens early on sunday .",
]

# A weaker system: content words dropped or replaced.
SYSTEM_B = [
    "a dog sat on a chair .",
    "a man is singing .",
    "it rains today .",
    "she sold old cheese .",
    "the bus leaves .",
    "children are sleeping .",
    "he found keys .",
    "the shop closes late on monday .",
]

SYSTEMS = {"system_a": SYSTEM_A, "system_b": SYSTEM_B}
