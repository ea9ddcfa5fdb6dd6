"""Symbolic probe of one design question of the Sudoku network: how fast does a transformer
over the 81 cells learn the Sudoku exclusions from a per-cell cross-entropy, depending on how
it is told where each cell is?

No pixels: a cell's token is the embedding of its digit when given, else of a mask token.
Data: the training stream's solved grids with 0-80 givens; the loss is the cross-entropy of
the hidden digits. Position encodings compared (``--kinds``):
- ``learned``: one free vector per cell, init std 0.02 (CellNet's ``pos="learned"``);
- ``learned1``: the same at init std 1;
- ``sincos``: fixed 2-D sine-cosine of (row, column) (the DiT's);
- ``rc``: learned row + column embeddings;
- ``rcb``: learned row + column + box embeddings (CellNet's ``pos="rcb"``).
Every ``--every`` steps it prints the accuracy on the hidden cells of 256 fresh puzzles with
50 givens (1.75 candidates per hidden cell on average; 1/9 = reading nothing).

Usage: python benchmarks/probe_positions.py [--kinds learned rcb] [--steps 250] [--batch 128]
"""
from __future__ import annotations

import argparse
import math
import time

import torch
import torch.nn.functional as F
from torch import nn

from srm_bench.baselines.streams import SudokuStream

IDX = torch.arange(81)
ROW, COL = IDX // 9, IDX % 9
BOX = (ROW // 3) * 3 + COL // 3


def sincos_rc(hidden: int) -> torch.Tensor:
    q = hidden // 4
    f = torch.exp(-math.log(100.0) * torch.arange(q) / q)
    a, b = ROW[:, None] * f, COL[:, None] * f
    return torch.cat([a.sin(), a.cos(), b.sin(), b.cos()], 1)


class Probe(nn.Module):
    def __init__(self, kind: str, hidden: int, depth: int) -> None:
        super().__init__()
        self.kind = kind
        self.emb = nn.Embedding(10, hidden)  # digits 0-8, 9 = hidden cell
        if kind == "learned":
            self.pos = nn.Parameter(torch.randn(81, hidden) * 0.02)
        elif kind == "learned1":
            self.pos = nn.Parameter(torch.randn(81, hidden))
        elif kind in ("rc", "rcb"):
            self.row, self.col = nn.Embedding(9, hidden), nn.Embedding(9, hidden)
            if kind == "rcb":
                self.box = nn.Embedding(9, hidden)
        elif kind != "sincos":
            raise SystemExit(f"unknown kind {kind!r}")
        self.layers = nn.ModuleList([nn.TransformerEncoderLayer(hidden, 4, 3 * hidden, 0.0, batch_first=True,
                                                                norm_first=True) for _ in range(depth)])
        self.head = nn.Linear(hidden, 9)

    def forward(self, tok: torch.Tensor) -> torch.Tensor:
        h = self.emb(tok)
        if self.kind in ("learned", "learned1"):
            h = h + self.pos
        elif self.kind == "sincos":
            h = h + sincos_rc(h.shape[-1])
        else:
            h = h + self.row(ROW) + self.col(COL)
            if self.kind == "rcb":
                h = h + self.box(BOX)
        for layer in self.layers:
            h = layer(h)
        return self.head(h)


def batch(stream: SudokuStream, n: int, lo: int = 0, hi: int = 81) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    g = stream.draw(n).labels
    known = torch.rand(n, 81).argsort(1).argsort(1) < torch.randint(lo, hi, (n, 1))
    return torch.where(known, g, 9), g, known


def run(kind: str, a: argparse.Namespace) -> None:
    torch.manual_seed(a.seed)
    stream = SudokuStream("cpu")
    model = Probe(kind, a.hidden, a.depth)
    opt = torch.optim.AdamW(model.parameters(), 3e-4)
    t0 = time.time()
    for step in range(1, a.steps + 1):
        tok, g, known = batch(stream, a.batch)
        ce = F.cross_entropy(model(tok).flatten(0, 1), g.flatten(), reduction="none").reshape(g.shape)
        loss = (ce * ~known).sum() / (~known).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % a.every == 0:
            with torch.no_grad():
                tok, g, known = batch(stream, 256, 50, 51)
                acc = (model(tok).argmax(-1) == g)[~known].float().mean()
            print(f"{kind:8s} step {step:5d}  loss {loss.item():.3f}  hidden-cell accuracy at 50 givens {acc:.3f}"
                  f"  ({time.time() - t0:.0f} s)", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kinds", nargs="+", default=["learned", "rcb"])
    ap.add_argument("--steps", type=int, default=250)
    ap.add_argument("--every", type=int, default=50)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--depth", type=int, default=4)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    torch.set_num_threads(2)
    for kind in a.kinds:
        run(kind, a)


if __name__ == "__main__":
    main()
