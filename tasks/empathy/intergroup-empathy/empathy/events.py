"""Toy first-person experience descriptions, each tagged with the emotion it caused."""

EVENTS = [
    ("anger", "my landlord kept my whole deposit for a scratch that was already there"),
    ("fear", "the brakes of my car failed on a steep hill"),
    ("sadness", "my grandmother passed away before I could visit her"),
    ("joy", "I got the scholarship I had worked towards for two years"),
    ("pride", "my daughter gave her first speech in front of the whole school"),
    ("shame", "I forgot my best friend's wedding"),
    ("relief", "the biopsy came back benign"),
    ("guilt", "I snapped at my mother when she only wanted to help"),
    ("surprise", "my colleagues threw me a party I knew nothing about"),
    ("disgust", "I found a worm in the salad I was eating"),
    ("trust", "my neighbour looked after my kids for a week without being asked"),
    ("boredom", "I waited six hours at the airport with nothing to do"),
]
