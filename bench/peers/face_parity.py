"""Descriptor parity, the peer's side: for each image in our `custos face analyze --preset
peer --descriptor` JSON (stdin), runs face_recognition 1.3.0 on the same file with the same
parameters: its own HOG detection (upsample 1) to compare boxes, then face_encodings on OUR
boxes (the same face box, 5-point model, 1 jitter) to compare descriptors component by
component. Prints one line per face and a summary; exits 1 when any component differs by
more than the tolerance.
"""
import json
import sys

import numpy as np
import face_recognition


def css(box):
    """Our box (left, top, width, height; dlib's inclusive rectangle) as (top, right, bottom, left)."""
    return (box["top"], box["left"] + box["width"] - 1, box["top"] + box["height"] - 1, box["left"])


def main():
    tolerance = float(sys.argv[1]) if len(sys.argv) > 1 else 1e-3
    ours = json.load(sys.stdin)["images"]
    worst, faces, box_matches, box_total = 0.0, 0, 0, 0
    for entry in ours:
        if "error" in entry and entry["error"]:
            print(f"{entry['file']}: our error {entry['error']}")
            continue
        image = face_recognition.load_image_file(entry["file"])
        peer_boxes = sorted(face_recognition.face_locations(image, number_of_times_to_upsample=1, model="hog"))
        our_boxes = [css(face["box"]) for face in entry["faces"]]
        trimmed = sorted(face_recognition.api._trim_css_to_bounds(b, image.shape) for b in our_boxes)
        box_total += 1
        same_boxes = trimmed == peer_boxes
        box_matches += same_boxes
        encodings = face_recognition.face_encodings(image, known_face_locations=our_boxes, num_jitters=1, model="small")
        for face, theirs in zip(entry["faces"], encodings):
            difference = float(np.max(np.abs(np.array(face["descriptor"], dtype=np.float64) - theirs)))
            distance = float(np.linalg.norm(np.array(face["descriptor"]) - theirs))
            worst = max(worst, difference)
            faces += 1
            print(f"{entry['file'].rsplit('/', 1)[-1]:32} box {css(face['box'])} boxes_equal={same_boxes} "
                  f"max|diff|={difference:.2e} distance={distance:.2e}")
    verdict = "PASS" if faces > 0 and worst <= tolerance else "FAIL"
    print(f"parity {verdict}: {faces} faces in {len(ours)} images, detections identical in {box_matches}/{box_total} images, "
          f"largest per-component difference {worst:.2e} (tolerance {tolerance:g})")
    sys.exit(0 if verdict == "PASS" else 1)


if __name__ == "__main__":
    main()
