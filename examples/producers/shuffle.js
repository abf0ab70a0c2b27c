// A Fisher–Yates in Node.js (Math.random cannot be seeded: the counts differ run to run).
const deck = [0, 1, 2, 3, 4];
for (;;) {
  for (let i = deck.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  console.log(deck);
}
