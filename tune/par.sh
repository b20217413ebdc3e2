#!/bin/bash
# usage: par.sh ALGO ENV SEED file-with-one-json-per-line
while IFS= read -r v; do
  while [ $(jobs -r | wc -l) -ge 2 ]; do sleep 1; done
  .venv/bin/python tune/curve.py $1 $2 $3 "$v" 2>&1 | cut -c1-600 &
done < $4
wait
