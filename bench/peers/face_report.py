"""Prints bench/face.sh's side-by-side table from the JSON lines of `custos face bench`
(ours at the peer's parameters, ours at our selfie defaults) and of
face_recognition_bench.py (the peer at its defaults). The last line is exactly
`ratio parity=P selfie=S`:
  P: the smallest whole-pipeline ratio peer/ours over the images, both at the peer's parameters;
  S: the whole-pipeline ratio peer/ours on the 640x480 frames (summed medians), ours at our
     selfie defaults against the peer at its defaults.
"""
import json
import sys

STAGES = ["decode", "detect", "landmarks", "chip", "descriptor", "pipeline"]


def load(path):
    images, throughput = {}, {}
    for line in open(path):
        record = json.loads(line)
        if record["kind"] == "image":
            images[record["file"]] = record
        else:
            throughput[record["threads"]] = record["images_per_second"]
    return images, throughput


def short(path):
    return path.rsplit("/", 1)[-1]


def main():
    clock = "cpu"
    arguments = sys.argv[1:]
    if arguments and arguments[0].startswith("--clock="):
        clock = arguments.pop(0).split("=", 1)[1]
    key = "cpu_stages" if clock == "cpu" else "stages"
    parity, _ = load(arguments[0])
    selfie, selfie_throughput = load(arguments[1])
    peer, _ = load(arguments[2])
    for table in (parity, selfie, peer):
        for record in table.values():
            record["stages"] = record[key]
    files = [f for f in peer if f in parity]
    print(f"times: {'CPU time of the measuring thread' if clock == 'cpu' else 'wall clock'} (CLOCK={clock}); "
          "both sides single-threaded (BLAS threads 1)")
    helpers = max((record.get("cpu_ms_on_other_threads", 0.0) for record in peer.values()), default=0.0)
    if helpers > 50:
        print(f"warning: the peer used {helpers:.0f} ms of CPU on other threads; its thread CPU times undercount it")

    print("== parity: both at face_recognition's defaults (HOG upsample 1, 5-point, 1 jitter); medians in ms, ratio = peer/ours")
    header = f"{'image':34} {'size':>9} {'faces':>7} " + " ".join(f"{s:>19}" for s in STAGES)
    print(header)
    ratios = []
    for f in files:
        ours, theirs = parity[f], peer[f]
        cells = []
        for stage in STAGES:
            o, p = ours["stages"][stage]["median"], theirs["stages"][stage]["median"]
            cells.append(f"{o:7.1f}/{p:7.1f} {p / o if o > 0 else 0:4.1f}x")
        ratio = theirs["stages"]["pipeline"]["median"] / ours["stages"]["pipeline"]["median"]
        ratios.append(ratio)
        print(f"{short(f):34} {ours['width']:>4}x{ours['height']:<4} {ours['faces']:>3}/{theirs['faces']:<3} " + " ".join(f"{c:>19}" for c in cells))
    print("   (each cell: ours/peer ratio; p95 of ours in the JSON under bench/out/face)")

    print("== ours at selfie defaults (HOG, no upsampling, detection on <= 480 px, 68-point landmarks, descriptor) vs the peer at its defaults")
    selfie_ours = selfie_peer = 0.0
    for f in files:
        if f not in selfie:
            continue
        ours, theirs = selfie[f], peer[f]
        o, p = ours["stages"]["pipeline"]["median"], theirs["stages"]["pipeline"]["median"]
        q = ours["stages"]["pipeline"]["p95"]
        print(f"{short(f):34} {ours['width']:>4}x{ours['height']:<4} faces {ours['faces']}/{theirs['faces']}  pipeline ours {o:6.1f} ms (p95 {q:6.1f})  peer {p:6.1f} ms  {p / o:4.1f}x")
        if (ours["width"], ours["height"]) == (640, 480):
            selfie_ours += o
            selfie_peer += p

    descriptors = sorted(parity[f]["stages"]["descriptor"]["median"] for f in files if parity[f]["faces"] > 0)
    peer_descriptors = sorted(peer[f]["stages"]["descriptor"]["median"] for f in files if peer[f]["faces"] > 0)
    if descriptors:
        print(f"descriptor (one face, median over images): ours {descriptors[len(descriptors) // 2]:.1f} ms, peer {peer_descriptors[len(peer_descriptors) // 2]:.1f} ms")
    throughputs = [("all images", selfie_throughput)]
    if len(arguments) > 3:
        throughputs.insert(0, ("the 640x480 and 1280x720 frames", load(arguments[3])[1]))
    for name, rates in throughputs:
        if len(rates) >= 2:
            one, most = rates[1], max(rates)
            print(f"throughput (wall clock, selfie defaults, {name}): 1 thread {one:.1f} images/s, "
                  f"{most} threads {rates[most]:.1f} images/s = {rates[most] / one:.2f}x")
    parity_ratio = min(ratios) if ratios else 0.0
    selfie_ratio = selfie_peer / selfie_ours if selfie_ours > 0 else 0.0
    print(f"ratio parity={parity_ratio:.2f} selfie={selfie_ratio:.2f}")


if __name__ == "__main__":
    main()
