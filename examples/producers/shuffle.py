# Python's random.shuffle, seeded by shuffle-bias so that a run repeats.
import os, random
rng = random.Random(int(os.environ["SHUFFLE_BIAS_SEED"]))
deck = list(range(5))
while True:
    rng.shuffle(deck)
    print(deck)
