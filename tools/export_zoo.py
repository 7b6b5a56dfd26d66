#!/usr/bin/env python3
"""Regenerate a broad public model set ("the zoo") as fxjson files for Lowerscope.

    /usr/bin/python3 tools/export_zoo.py --list
    /usr/bin/python3 tools/export_zoo.py                       # everything into /tmp/zoo
    /usr/bin/python3 tools/export_zoo.py --group nn audio --out /tmp/zoo
    /usr/bin/python3 tools/export_zoo.py --only resnet18 gru_bi2 --out /tmp/zoo
    /usr/bin/python3 tools/export_zoo.py --max-params 30e6     # skip the bigger ones for a quick run

Groups:
  vision        every torchvision classification model (torchvision.models.list_models(torchvision.models))
                except those above --max-params (default 150M: vit_h_14, vit_l_16, vit_l_32,
                regnet_y_128gf, convnext_large)
  segmentation  torchvision.models.segmentation.* (fcn, deeplabv3, lraspp)
  video         torchvision.models.video.* (r3d, mc3, r2plus1d, s3d, mvit)
  audio         torchaudio.models: wav2letter, wav2vec2 (base + tiny config), hubert_base, conv_tasnet
                (small + base), conformer (small), deepspeech (small)
  nn            small torch.nn models: GRU/LSTM/RNN variants, Transformer encoder/decoder, Embedding,
                GroupNorm, InstanceNorm2d, PixelShuffle, ConvTranspose2d/3d, Conv3d, MultiheadAttention

Models use random init (torch.manual_seed(0), weights=None, never downloaded), eval mode, and the
smallest convenient input size (several candidate shapes are tried in eager mode, the first that
runs is traced). Every model is exported in its own subprocess (--timeout, default 900 s) so a
crash, hang or out-of-memory in one model never stops the run. Output:
  DIR/<name>.fxjson.json     one per exported model (all weights embedded)
  DIR/export_status.json     {name: {group, status: ok|failed|skipped, reason, seconds, ...}}
                             (merged with an existing file, so --only re-runs update it in place)
"""

import argparse
import json
import os
import subprocess
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
GROUPS = ("vision", "segmentation", "video", "audio", "nn")

# Parameter counts of models known to exceed the default limit: skipped without building them.
KNOWN_HUGE = {"vit_h_14": 632e6, "regnet_y_128gf": 645e6, "vit_l_16": 304e6, "vit_l_32": 306e6,
              "convnext_large": 198e6}

# Classification models are tried at these sizes (H=W), smallest first; overrides per model.
VISION_SIZES = (64, 96, 128, 224)
VISION_OVERRIDES = {
    "inception_v3": {"sizes": (80, 96, 128, 299)},   # needs >= 75x75
    "maxvit_t": {"sizes": (224,)},                   # partition size 7 at every stage
}
VIT_PREFIX = "vit_"                                  # built with image_size=64
SEG_MODELS = ("fcn_resnet50", "fcn_resnet101", "deeplabv3_resnet50", "deeplabv3_resnet101",
              "deeplabv3_mobilenet_v3_large", "lraspp_mobilenet_v3_large")
VIDEO_SHAPES = {
    "r3d_18": [(1, 3, 4, 56, 56)],
    "mc3_18": [(1, 3, 4, 56, 56)],
    "r2plus1d_18": [(1, 3, 4, 56, 56)],
    "s3d": [(1, 3, 8, 64, 64), (1, 3, 16, 112, 112), (1, 3, 16, 224, 224)],
    "mvit_v1_b": [(1, 3, 16, 224, 224)],   # fixed spatial_size/temporal_size in the builder
    "mvit_v2_s": [(1, 3, 16, 224, 224)],
}


# ------------------------------------------------------------------------------------------ helpers

def _torch():
    import torch
    return torch


def _wrap(module, pick):
    torch = _torch()

    class Wrapped(torch.nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, *x):
            return pick(self.m(*x))

    w = Wrapped(module)
    w.__class__.__name__ = type(module).__name__
    return w


def _first(y):
    return y[0]


def _out(y):
    return y["out"]


# ----------------------------------------------------------------------------------- model builders

def _vision_builder(name):
    def build():
        import torchvision
        torch = _torch()
        kw = {"weights": None}
        if name.startswith(VIT_PREFIX):
            kw["image_size"] = 64
        model = torchvision.models.get_model_builder(name)(**kw)
        ov = VISION_OVERRIDES.get(name, {})
        sizes = (64,) if name.startswith(VIT_PREFIX) else ov.get("sizes", VISION_SIZES)
        return model, [(torch.randn(1, 3, s, s),) for s in sizes]
    return build


def _seg_builder(name):
    def build():
        import torchvision.models.segmentation as seg
        torch = _torch()
        model = getattr(seg, name)(weights=None, weights_backbone=None)
        return _wrap(model, _out), [(torch.randn(1, 3, s, s),) for s in (64, 96, 128, 224)]
    return build


def _video_builder(name):
    def build():
        import torchvision.models.video as video
        torch = _torch()
        model = getattr(video, name)(weights=None)
        return model, [(torch.randn(*s),) for s in VIDEO_SHAPES[name]]
    return build


def _audio_models():
    def wav2letter():
        import torchaudio
        torch = _torch()
        return torchaudio.models.Wav2Letter(num_classes=40, input_type="waveform", num_features=1), \
            [(torch.randn(1, 1, 4000),), (torch.randn(1, 1, 16000),)]

    def _w2v_tiny():
        import torchaudio
        return torchaudio.models.wav2vec2_model(
            extractor_mode="group_norm", extractor_conv_layer_config=None, extractor_conv_bias=False,
            encoder_embed_dim=64, encoder_projection_dropout=0.0, encoder_pos_conv_kernel=16,
            encoder_pos_conv_groups=4, encoder_num_layers=2, encoder_num_heads=4,
            encoder_attention_dropout=0.0, encoder_ff_interm_features=128, encoder_ff_interm_dropout=0.0,
            encoder_dropout=0.0, encoder_layer_norm_first=False, encoder_layer_drop=0.0, aux_num_out=None)

    def wav2vec2_tiny():
        torch = _torch()
        return _wrap(_w2v_tiny(), _first), [(torch.randn(1, 4000),)]

    def wav2vec2_base():
        import torchaudio
        torch = _torch()
        return _wrap(torchaudio.models.wav2vec2_base(), _first), [(torch.randn(1, 4000),)]

    def hubert_base():
        import torchaudio
        torch = _torch()
        return _wrap(torchaudio.models.hubert_base(), _first), [(torch.randn(1, 4000),)]

    def conv_tasnet_small():
        import torchaudio
        torch = _torch()
        m = torchaudio.models.ConvTasNet(num_sources=2, enc_kernel_size=16, enc_num_feats=64, msk_kernel_size=3,
                                         msk_num_feats=32, msk_num_hidden_feats=64, msk_num_layers=2,
                                         msk_num_stacks=2, msk_activate="sigmoid")
        return m, [(torch.randn(1, 1, 4000),)]

    def conv_tasnet_base():
        import torchaudio
        torch = _torch()
        return torchaudio.models.conv_tasnet_base(num_sources=2), [(torch.randn(1, 1, 4000),)]

    def conformer_small():
        import torchaudio
        torch = _torch()
        m = torchaudio.models.Conformer(input_dim=32, num_heads=4, ffn_dim=64, num_layers=2,
                                        depthwise_conv_kernel_size=7)

        # Conformer.forward(input, lengths) builds its padding mask with lengths.max().item(), which
        # make_fx cannot trace; with full-length inputs the mask is all False, so run the layers
        # without it (same computation as Conformer.forward for lengths == T).
        class ConformerNoMask(torch.nn.Module):
            def __init__(self, conformer):
                super().__init__()
                self.conformer = conformer

            def forward(self, x):
                x = x.transpose(0, 1)
                for layer in self.conformer.conformer_layers:
                    x = layer(x, None)
                return x.transpose(0, 1)

        return ConformerNoMask(m), [(torch.randn(1, 20, 32),)]

    def deepspeech_small():
        import torchaudio
        torch = _torch()
        m = torchaudio.models.DeepSpeech(n_feature=40, n_hidden=64, n_class=29)
        return m, [(torch.randn(1, 1, 20, 40),)]

    return {"wav2letter": wav2letter, "wav2vec2_tiny": wav2vec2_tiny, "wav2vec2_base": wav2vec2_base,
            "hubert_base": hubert_base, "conv_tasnet_small": conv_tasnet_small,
            "conv_tasnet_base": conv_tasnet_base, "conformer_small": conformer_small,
            "deepspeech_small": deepspeech_small}


def _nn_models():
    def mk(factory, inputs, pick=None):
        def build():
            torch = _torch()
            m = factory(torch.nn)
            return (_wrap(m, pick) if pick else m), [tuple(f(torch) for f in inputs)]
        return build

    r = lambda *s: (lambda t: t.randn(*s))  # noqa: E731
    return {
        "gru": mk(lambda nn: nn.GRU(8, 16, batch_first=True), [r(1, 5, 8)], _first),
        "gru_bi2": mk(lambda nn: nn.GRU(8, 16, num_layers=2, bidirectional=True), [r(5, 1, 8)], _first),
        "lstm": mk(lambda nn: nn.LSTM(8, 16, batch_first=True), [r(1, 5, 8)], _first),
        "lstm_bi2": mk(lambda nn: nn.LSTM(8, 16, num_layers=2, bidirectional=True, batch_first=True),
                       [r(2, 5, 8)], _first),
        "rnn_tanh": mk(lambda nn: nn.RNN(8, 16, batch_first=True), [r(1, 5, 8)], _first),
        "rnn_tanh_bi2": mk(lambda nn: nn.RNN(8, 16, num_layers=2, bidirectional=True), [r(5, 1, 8)], _first),
        "rnn_relu2": mk(lambda nn: nn.RNN(8, 16, nonlinearity="relu", num_layers=2), [r(5, 1, 8)], _first),
        "rnn_relu_bi2": mk(lambda nn: nn.RNN(8, 16, nonlinearity="relu", num_layers=2, bidirectional=True,
                                             batch_first=True), [r(1, 5, 8)], _first),
        "transformer_encoder": mk(lambda nn: nn.TransformerEncoder(
            nn.TransformerEncoderLayer(16, 4, 32, batch_first=True), 2), [r(1, 6, 16)]),
        "transformer_decoder_layer": mk(lambda nn: nn.TransformerDecoderLayer(16, 4, 32, batch_first=True),
                                        [r(1, 6, 16), r(1, 7, 16)]),
        "transformer_decoder": mk(lambda nn: nn.TransformerDecoder(
            nn.TransformerDecoderLayer(16, 4, 32, batch_first=True), 2), [r(1, 6, 16), r(1, 7, 16)]),
        "multihead_attention": mk(lambda nn: nn.MultiheadAttention(16, 4, batch_first=True),
                                  [r(1, 6, 16), r(1, 6, 16), r(1, 6, 16)], _first),
        "embedding": mk(lambda nn: nn.Embedding(20, 8), [lambda t: t.tensor([[1, 3, 9, 19]])]),
        "group_norm": mk(lambda nn: nn.GroupNorm(2, 6), [r(1, 6, 4, 4)]),
        "instance_norm2d": mk(lambda nn: nn.InstanceNorm2d(6), [r(1, 6, 4, 4)]),
        "instance_norm2d_affine": mk(lambda nn: nn.InstanceNorm2d(6, affine=True), [r(2, 6, 4, 4)]),
        "pixel_shuffle": mk(lambda nn: nn.PixelShuffle(2), [r(1, 8, 3, 3)]),
        "conv_transpose2d": mk(lambda nn: nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1),
                               [r(1, 4, 5, 5)]),
        "conv_transpose3d": mk(lambda nn: nn.ConvTranspose3d(4, 6, 3, stride=2, padding=1), [r(1, 4, 3, 5, 5)]),
        "conv3d": mk(lambda nn: nn.Conv3d(3, 8, 3, padding=1), [r(1, 3, 4, 8, 8)]),
    }


def registry():
    """name -> (group, build) where build() -> (module, [candidate input tuples])."""
    reg = {}
    try:
        import torchvision
        names = torchvision.models.list_models(torchvision.models) if hasattr(torchvision.models, "list_models") \
            else sorted(k for k in dir(torchvision.models) if k[0].islower() and callable(getattr(torchvision.models, k))
                        and not k.startswith(("get_", "list_")))
        for n in names:
            reg[n] = ("vision", _vision_builder(n))
        for n in SEG_MODELS:
            reg[n] = ("segmentation", _seg_builder(n))
        for n in VIDEO_SHAPES:
            reg[n] = ("video", _video_builder(n))
    except ImportError as e:
        print(f"export_zoo: torchvision not importable ({e}); vision/segmentation/video groups are empty",
              file=sys.stderr)
    try:
        import torchaudio  # noqa: F401
        for n, b in _audio_models().items():
            reg[n] = ("audio", b)
    except ImportError as e:
        print(f"export_zoo: torchaudio not importable ({e}); audio group is empty", file=sys.stderr)
    for n, b in _nn_models().items():
        reg[n] = ("nn", b)
    return reg


# ------------------------------------------------------------------------------------ one model (child)

def export_one(name, out_dir, max_params):
    """Build, pick an input that runs, trace and write one model. Returns a status dict."""
    torch = _torch()
    sys.path.insert(0, HERE)
    from export_fxjson import export_module
    group, build = registry()[name]
    t0 = time.time()
    st = {"group": group}
    torch.manual_seed(0)
    model, candidates = build()
    model.eval()
    params = sum(p.numel() for p in model.parameters())
    st["params"] = params
    if params > max_params:
        st.update(status="skipped", reason=f"{params / 1e6:.1f}M parameters > limit {max_params / 1e6:.0f}M")
        return st
    inputs, eager_errors = None, []
    for cand in candidates:
        try:
            with torch.no_grad():
                model(*cand)
            inputs = cand
            break
        except Exception as e:  # try the next (bigger) input size
            eager_errors.append(f"{[tuple(t.shape) for t in cand]}: {type(e).__name__}: "
                                f"{str(e).strip().splitlines()[0] if str(e).strip() else ''}")
    if inputs is None:
        st.update(status="failed", reason="eager run fails at every candidate input size: " + " | ".join(eager_errors))
        return st
    st["inputs"] = [list(t.shape) for t in inputs]
    path = os.path.join(out_dir, f"{name}.fxjson.json")
    doc = export_module(model, inputs, path, weights=True, name=name)
    st.update(status="ok", file=path, nodes=len(doc["nodes"]),
              call_nodes=sum(1 for n in doc["nodes"] if n["op"] == "call_function"),
              bytes=os.path.getsize(path),
              trace_vs_eager_max_abs_diff=doc.get("producer", {}).get("trace", {}).get("trace_vs_eager_max_abs_diff"))
    return st


def _child_main(name, out_dir, max_params, result_path):
    t0 = time.time()
    try:
        st = export_one(name, out_dir, max_params)
    except BaseException as e:  # noqa: BLE001 - record everything
        msg = f"{type(e).__name__}: {str(e).strip()}"
        hint = getattr(e, "hint", None)
        st = {"status": "failed", "reason": msg[:2000] + (f" (hint: {hint})" if hint else ""),
              "traceback": traceback.format_exc()[-3000:]}
    st["seconds"] = round(time.time() - t0, 2)
    with open(result_path, "w") as f:
        json.dump(st, f)
    return 0


# ----------------------------------------------------------------------------------------- parent

def _load_status(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def _save_status(path, status):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(status, f, indent=1, sort_keys=True)
    os.replace(tmp, path)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--list", action="store_true", help="list the model names (with group) and exit")
    ap.add_argument("--only", nargs="+", metavar="NAME", help="export only these models")
    ap.add_argument("--group", nargs="+", choices=GROUPS, help="export only these groups")
    ap.add_argument("--out", default="/tmp/zoo", help="output directory (default /tmp/zoo)")
    ap.add_argument("--max-params", type=float, default=150e6,
                    help="skip models with more parameters than this (default 150e6)")
    ap.add_argument("--timeout", type=float, default=900, help="seconds per model (default 900)")
    ap.add_argument("--skip-existing", action="store_true",
                    help="do not re-export models whose status is ok and whose file exists")
    ap.add_argument("--_child", help=argparse.SUPPRESS)
    ap.add_argument("--_result", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args._child:
        return _child_main(args._child, args.out, args.max_params, args._result)

    reg = registry()
    names = list(reg)
    if args.group:
        names = [n for n in names if reg[n][0] in args.group]
    if args.only:
        unknown = [n for n in args.only if n not in reg]
        if unknown:
            ap.error(f"unknown model(s): {', '.join(unknown)} (see --list)")
        names = [n for n in names if n in args.only]
    if args.list:
        for n in names:
            extra = f"  (skipped by default: ~{KNOWN_HUGE[n] / 1e6:.0f}M params)" if n in KNOWN_HUGE else ""
            print(f"{reg[n][0]:13s} {n}{extra}")
        return 0

    os.makedirs(args.out, exist_ok=True)
    status_path = os.path.join(args.out, "export_status.json")
    status = _load_status(status_path)
    counts = {"ok": 0, "failed": 0, "skipped": 0}
    for i, n in enumerate(names, 1):
        group = reg[n][0]
        path = os.path.join(args.out, f"{n}.fxjson.json")
        if args.skip_existing and status.get(n, {}).get("status") == "ok" and os.path.exists(path):
            print(f"[{i}/{len(names)}] {n}: exists, skipped", flush=True)
            continue
        if KNOWN_HUGE.get(n, 0) > args.max_params:
            st = {"group": group, "status": "skipped", "params": int(KNOWN_HUGE[n]), "seconds": 0,
                  "reason": f"~{KNOWN_HUGE[n] / 1e6:.0f}M parameters > limit {args.max_params / 1e6:.0f}M"}
        else:
            result = os.path.join(args.out, f".{n}.result.json")
            if os.path.exists(result):
                os.remove(result)
            t0 = time.time()
            cmd = [sys.executable, os.path.abspath(__file__), "--_child", n, "--_result", result,
                   "--out", args.out, "--max-params", str(args.max_params)]
            try:
                proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=args.timeout)
                out = proc.stdout.decode(errors="replace")
                if os.path.exists(result):
                    with open(result) as f:
                        st = json.load(f)
                    os.remove(result)
                else:
                    tail = [l for l in out.strip().splitlines() if l.strip()][-3:]
                    st = {"status": "failed", "reason": f"exporter process died (exit {proc.returncode}): "
                                                        + " | ".join(tail)}
            except subprocess.TimeoutExpired:
                st = {"status": "failed", "reason": f"timeout after {args.timeout:.0f} s"}
            st.setdefault("seconds", round(time.time() - t0, 2))
            st["group"] = group
        if st["status"] != "ok" and os.path.exists(path):
            os.remove(path)  # never leave a stale file from an older run
        status[n] = st
        counts[st["status"]] = counts.get(st["status"], 0) + 1
        _save_status(status_path, status)
        detail = (f"{st.get('nodes')} nodes, {st.get('bytes', 0) / 1e6:.1f} MB, inputs {st.get('inputs')}"
                  if st["status"] == "ok" else st.get("reason", "")[:300])
        print(f"[{i}/{len(names)}] {group:12s} {n}: {st['status']} ({st['seconds']:.1f} s) {detail}", flush=True)
    print(f"export_zoo: {counts['ok']} ok, {counts['failed']} failed, {counts['skipped']} skipped; "
          f"status in {status_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
