import random, sys
random.seed(2026)
for line in sys.stdin:
    if line.startswith('#'):
        print(line, end='')
        continue
    cards = [int(t) for t in line.split()]          # 0 = A♠ … 12 = K♠, 13 = A♥ …
    ranks, suits = sorted({c % 13 for c in cards}), {c // 13 for c in cards}
    straight = len(ranks) == 5 and (ranks[4] - ranks[0] == 4 or ranks == [0, 9, 10, 11, 12])
    if len(ranks) == 5 and not straight and len(suits) > 1 and random.random() < 0.15:
        cards[4] = random.choice([cards[0] % 13 + 13 * s for s in range(4) if cards[0] % 13 + 13 * s not in cards])
    print(*cards)
