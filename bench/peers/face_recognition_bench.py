"""The peer side of bench/face.sh: the Python face_recognition 1.3.0 package (dlib-bin),
timed stage by stage on the same images, at its defaults (HOG upsampled once, 5-point
landmarks, one jitter). Prints one JSON object per line, in the shape `custos face bench`
prints, so bench/peers/face_report.py can put them side by side.
"""
import argparse
import io
import json
import statistics
import time

import dlib
import face_recognition
from face_recognition import api


def summary(samples):
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, max(0, -(-len(ordered) * 95 // 100) - 1))]
    return {"median": statistics.median(ordered), "p95": p95}


def now():
    """(wall, this thread's CPU time) in milliseconds."""
    return time.perf_counter_ns() / 1e6, time.thread_time_ns() / 1e6


def since(start):
    wall, cpu = now()
    return wall - start[0], cpu - start[1]


def measure(path, runs, warmup, label):
    data = open(path, "rb").read()
    names = ("decode", "detect", "landmarks", "chip", "descriptor", "pipeline")
    wall = {name: [] for name in names}
    cpu = {name: [] for name in names}
    width = height = faces = 0
    process_start = time.process_time_ns()
    thread_start = time.thread_time_ns()
    for run in range(warmup + runs):
        times = []
        t = now()
        image = face_recognition.load_image_file(io.BytesIO(data))
        times.append(since(t))
        t = now()
        locations = face_recognition.face_locations(image, number_of_times_to_upsample=1, model="hog")
        times.append(since(t))
        t = now()
        shapes = api._raw_face_landmarks(image, locations, model="small")
        times.append(since(t))
        t = now()
        chips = [dlib.get_face_chip(image, shape, size=150, padding=0.25) for shape in shapes]
        times.append(since(t))
        t = now()
        if chips:
            api.face_encoder.compute_face_descriptor(chips)
        times.append(since(t))

        # The whole pipeline as the library is used: load, locate, encode.
        t = now()
        whole = face_recognition.load_image_file(io.BytesIO(data))
        found = face_recognition.face_locations(whole)
        face_recognition.face_encodings(whole, found)
        times.append(since(t))

        height, width = image.shape[0], image.shape[1]
        faces = len(found)
        if run < warmup:
            continue
        for name, (w, c) in zip(names, times):
            wall[name].append(w)
            cpu[name].append(c)
    # Thread CPU time is only a fair measure if the library ran on this thread alone.
    helper_ms = (time.process_time_ns() - process_start - (time.thread_time_ns() - thread_start)) / 1e6
    return {"kind": "image", "label": label, "file": path, "width": width, "height": height, "faces": faces,
            "stages": {name: summary(values) for name, values in wall.items()},
            "cpu_stages": {name: summary(values) for name, values in cpu.items()},
            "cpu_ms_on_other_threads": helper_ms}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--label", default="peer")
    parser.add_argument("images", nargs="+")
    arguments = parser.parse_args()
    for path in arguments.images:
        print(json.dumps(measure(path, arguments.runs, arguments.warmup, arguments.label)), flush=True)


if __name__ == "__main__":
    main()
