"""The names the demo's story gives its parts, which the tour looks them up by."""

RELEASE_VERSION = "1.0.0"
TEST_BOARD = "demo-test"
DEV_BOARD = "demo-dev"
FIRST_CAMPAIGN = "Round 1: every reference"
OPEN_CAMPAIGN = "Round 2: second opinions on the dev split"
STUDY_NAME = "Do the metrics agree with the raters?"
