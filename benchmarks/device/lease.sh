# Sourced by a lease script (benchmarks/device/lease-*.sh) after setup.sh: the call's clock, a weights
# file's step, and where the weights of a campaign run o-NAME (benchmarks/device/campaign.sh) are.
# T0 is the call's start (export it in the run command), END its budget in seconds (default 560).
#   left         seconds left in the call
#   mins S       minutes to give a job that must end S seconds before the call does (>= 0.5)
#   wstep W      the training step recorded in weights file W (0 if there is none)
#   init_of N    the carried weights runs/o-N.safetensors, or nothing
#   latest N     the newest weights of run o-N: this host's /tmp/runs/o-N, else the carried ones
T0=${T0:-$(date +%s)}
NGPU=$(nvidia-smi -L | wc -l)
left() { echo $(( ${END:-560} - ($(date +%s) - T0) )); }
mins() { python3 -c "print(round(max(0.5, ($(left) - $1) / 60), 2))"; }
wstep() { [ -e "$1" ] && bash benchmarks/device/campaign.sh record "$1" | cut -f1 || echo 0; }
init_of() { [ -e runs/o-$1.safetensors ] && echo runs/o-$1.safetensors || echo ""; }
latest() {
  [ -e /tmp/runs/o-$1/weights.safetensors ] && echo /tmp/runs/o-$1/weights.safetensors || echo runs/o-$1.safetensors
}
