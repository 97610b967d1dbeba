#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Checks the layers of pidx.ko over its built objects.

Reads the layers from layers.txt (highest first) and the module's objects
from pidx.mod, then reads each object's symbols with nm.  Every symbol that
one object uses and another defines must come from a lower layer; an object
that no layer names is an error too.  Layers name an object by its path
under BUILD_DIR without .o: pidx_run, selftest/kit.  Prints one line per
violation and "layers: N objects, N uses across files, N violations";
exits 1 on any.

Usage: scripts/check-layers.py [--layers FILE] [BUILD_DIR]
"""
import argparse
import os
import subprocess
import sys


def read_layers(path):
    layer_of = {}
    names = []
    with open(path) as f:
        for line in f:
            words = line.split('#', 1)[0].split()
            if not words:
                continue
            name, files = words[0], words[1:]
            names.append(name)
            for stem in files:
                if stem in layer_of:
                    sys.exit(f"{path}: {stem} is in two layers")
                layer_of[stem] = len(names) - 1
    # highest first in the file: rank 0 is the top
    return layer_of, names


def symbols(obj):
    out = subprocess.run(['nm', obj], capture_output=True, text=True,
                         check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in 'TDBRGSVW' and parts[1].isupper():
            defined.add(parts[2])
        elif len(parts) == 2 and parts[0] == 'U':
            used.add(parts[1])
    return defined, used


def places(words, build):
    """Each object's path under BUILD_DIR, from pidx.mod's names of them.

    Kbuild names them where the module was built: under BUILD_DIR, or, for
    a build copied elsewhere, under the folder that all of them share.
    """
    absolute = [os.path.dirname(w) for w in words if os.path.isabs(w)]
    top = os.path.commonpath(absolute) if absolute else build
    rel = []
    for w in words:
        if not os.path.isabs(w):
            rel.append(os.path.normpath(w))
            continue
        r = os.path.relpath(w, build)
        inside = r != '..' and not r.startswith('..' + os.sep)
        rel.append(r if inside else os.path.relpath(w, top))
    return rel


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--layers')
    ap.add_argument('build', nargs='?', default='.')
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    layers = args.layers or os.path.join(build, 'layers.txt')
    layer_of, names = read_layers(layers)
    with open(os.path.join(build, 'pidx.mod')) as f:
        rel = places([w for w in f.read().split() if w.endswith('.o')],
                     build)
    if not rel:
        sys.exit(f"{build}/pidx.mod names no object: build the module first")
    bad = 0
    objs = [os.path.join(build, r) for r in rel]
    stem = {o: r[:-2] for o, r in zip(objs, rel)}
    for o in objs:
        if stem[o] not in layer_of:
            print(f"LAYER {stem[o]}.o: in no layer of {layers}")
            bad += 1
    owner, uses = {}, {}
    for o in objs:
        defined, used = symbols(o)
        for s in defined:
            owner[s] = o
        uses[o] = used
    crossings = 0
    for o in objs:
        for s in sorted(uses[o]):
            d = owner.get(s)
            if d is None or d == o:
                continue
            crossings += 1
            lo, ld = layer_of.get(stem[o]), layer_of.get(stem[d])
            if lo is None or ld is None:
                continue
            # rank 0 is the top: the definer must rank below the user
            if ld <= lo:
                print(f"LAYER {stem[o]}.o ({names[lo]}) uses {s} of "
                      f"{stem[d]}.o ({names[ld]}): not a lower layer")
                bad += 1
    print(f"layers: {len(objs)} objects, {crossings} uses across files, "
          f"{bad} violations")
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
