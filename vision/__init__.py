"""Photos to Scenes: detection, reading, joint decoding, layout and tracking (numpy, OpenCV,
onnxruntime only; never Flask, never torch)."""
