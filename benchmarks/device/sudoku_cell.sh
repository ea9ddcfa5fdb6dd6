# The Sudoku campaign's training call: benchmarks/device/train.sh with TASK=sudoku (see there).
#   [NPROC=4] [COMPILE=1] ... bash benchmarks/device/sudoku_cell.sh PRESET MINUTES [INIT] [extra train args]
TASK=sudoku exec bash benchmarks/device/train.sh "$@"
