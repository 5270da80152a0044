"""Every fixed piece of text used to build prompts. Prompt builders only fill these in."""

QUESTION = "Q: {question}"
ANSWER_PREFIX = "A:"
COT_TRIGGER = "Let's think step by step."
MORE_STEPS_TRIGGER = "Let's think step by step, you must think more steps."
STEP = "Step {index}: {text}"
FINAL_ANSWER = "Therefore, the answer is {answer}."
DEMO_SEPARATOR = "\n\n"

# One extra reasoning step per expansion strategy. None of them adds task information.
READ_AGAIN = 'Read the question again: "{question}"'
THINK_ABOUT_WORD = 'Think about the word "{word}": {meaning}'
REPEAT_STATE = "Repeat the current state: {state}"
MAKE_EQUATION = "Write the reasoning as an equation: {equation}"
SELF_VERIFICATION = "Verify the answer: {answer} is consistent with every number in the question."

# The order in which the expansion strategies are taken when only some of them are added.
EXPANSIONS = ("read_again", "think_about_word", "repeat_state", "self_verification", "make_equation")

STRATEGIES = (
    "zero_shot",
    "zero_shot_cot",
    "zero_shot_more_steps",
    "few_shot_cot",
    "add_steps",
    "compress_steps",
)
