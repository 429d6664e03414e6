"""Makes bench/face.sh's video-sized frames from ../shared/data: each source is cropped to
the target's aspect ratio around its centre and resized (Pillow, Lanczos), then saved as
an upright baseline JPEG (quality 92, no EXIF), so both engines read the same pixels.
"""
import pathlib
import sys

from PIL import Image, ImageOps

# (source under ../shared/data, output name, size)
FRAMES = [
    ("liveness/frames/talking_obama/frame_0011.jpg", "talking_obama_640x480.jpg", (640, 480)),
    ("liveness/frames/head_turn/frame_0050.jpg", "head_turn_640x480.jpg", (640, 480)),
    ("faces/exif/image_T1.jpg", "phone_capture_640x480.jpg", (640, 480)),
    ("liveness/frames/talking_obama/frame_0011.jpg", "talking_obama_1280x720.jpg", (1280, 720)),
    ("faces/identities/Jennifer_Aniston/img55.jpg", "aniston_1280x720.jpg", (1280, 720)),
]


def main():
    data, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    for source, name, size in FRAMES:
        image = ImageOps.exif_transpose(Image.open(data / source)).convert("RGB")
        if name.startswith("phone_capture"):
            # The phone capture is portrait once upright: keep the face, pad to landscape.
            canvas = Image.new("RGB", size, (0, 0, 0))
            scaled = ImageOps.contain(image, size, Image.LANCZOS)
            canvas.paste(scaled, ((size[0] - scaled.width) // 2, (size[1] - scaled.height) // 2))
            image = canvas
        else:
            image = ImageOps.fit(image, size, Image.LANCZOS)
        image.save(out / name, "JPEG", quality=92)
        print(out / name)


if __name__ == "__main__":
    main()
