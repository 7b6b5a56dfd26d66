# Source of scalar_ops_torch.fxjson.json, exported with torch 1.13 (Debian python3-torch):
#   /usr/bin/python3 tools/export_fxjson.py tests/data/xnnpack/scalar_ops_torch_model.py:build \
#       --input-shape 1,8,16 --input-shape 1,4,8,8 --weights -o tests/data/xnnpack/scalar_ops_torch.fxjson.json
import torch
class ScalarOps(torch.nn.Module):
    """Scalar multiplies outside attention (x * 0.5, y / 3) next to a real attention block."""
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(16, 16)
        self.attn = torch.nn.MultiheadAttention(16, 2, batch_first=True)
        self.conv = torch.nn.Conv2d(4, 4, 3, padding=1)
    def forward(self, x, img):
        h = self.proj(x) * 0.5
        a, _ = self.attn(h, h, h, need_weights=False)
        y = torch.relu(self.conv(img)) / 3
        return a + 1.0, y
def build():
    return ScalarOps()
