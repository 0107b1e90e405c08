# Sourced by the GPU scripts: sets $tile_run to the tile-run to use (the
# first argument, default dist/gpu/tile-run), unpacking dist/gpu/tile-run.xz
# from scripts/pack-tile-run.sh when needed.
tile_run=${1:-dist/gpu/tile-run}
if [ ! -x "$tile_run" ] && [ -f "$tile_run.xz" ]; then
  xz -dk "$tile_run.xz" && chmod +x "$tile_run"
fi
