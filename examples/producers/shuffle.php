<?php
// PHP's shuffle(), which draws from mt_rand: seeded by shuffle-bias with mt_srand.
mt_srand((int) getenv('SHUFFLE_BIAS_SEED'));
$deck = range(0, 4);
while (true) {
    shuffle($deck);
    echo json_encode($deck), "\n";
}
