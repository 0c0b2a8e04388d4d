# Every scale-vector variant of gammalab (docs/variants.md) as a plain PyTorch model in Hugging Face
# transformers' custom-code layout. `gammalab-train export` writes this file beside config.json and
# model.safetensors for the variants that do not fold into LlamaForCausalLM (DNP, unified, QK-norm, MoE, the
# 2026 arms) and for OR/ER, whose magnitude/direction parameters it keeps as trained. Load it offline with
#   AutoModelForCausalLM.from_pretrained(dir, trust_remote_code=True)
# It is also the variants' reference in a few lines each: a Pre-Norm Llama whose Norms are scale-free RMSNorms,
# with the scale vectors γ placed by three axes (configuration_gammalab.py): which linear maps share a γ, where
# γ sits around a map W (before: W(γ_b⊙x), after: γ_a⊙(Wx), dual: both, dual_norm: γ_a⊙Norm(W(γ_b⊙x))), and
# how γ is parameterised (γ = α, OR γ = β·α, ER γ = exp(β + α)); and what each Pre-Norm computes (norm_kind:
# the paper's RMSNorm, or one of the rival arms of docs/variants.md, "The 2026 arms"). The trainer's losses are reproduced to 1e-4
# relative in float32 (tests/trainer/export_transformers.sh); the trainer fuses the same algebra into fewer
# kernels (a γ_b is multiplied into W's columns, a γ_a outside dual_norm into its rows).
import torch
import torch.nn.functional as F
from torch import nn
from transformers import GenerationMixin, PreTrainedModel
from transformers.modeling_outputs import CausalLMOutputWithPast

from .configuration_gammalab import GammalabConfig


def rms_norm(x, eps, group=None):
    """Scale-free RMSNorm over the last dimension, or over each run of `group` consecutive entries of it."""
    if group is not None and group != x.shape[-1]:
        g = x.unflatten(-1, (-1, group))
        return (g * torch.rsqrt(g.pow(2).mean(-1, keepdim=True) + eps)).flatten(-2)
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)


class ScaleVector(nn.Module):
    """A scale vector γ in its trained parameterisation: α alone, or α and a scalar β (OR, ER)."""

    def __init__(self, size, param):
        super().__init__()
        self.param = param
        identity = 0.0 if param == "magdir_exp" else 1.0  # the α, β at which γ = 1
        self.alpha = nn.Parameter(torch.full((size,), identity))
        self.beta = nn.Parameter(torch.full((1,), identity)) if param != "plain" else None

    def forward(self):
        if self.param == "magdir_orig":
            return self.beta * self.alpha
        if self.param == "magdir_exp":
            return torch.exp(self.beta + self.alpha)
        return self.alpha


class Axes:
    """Which scale vectors a model has (mirrors the trainer's Model constructor)."""

    def __init__(self, config):
        none = config.scale_sharing == "none"
        self.in_side = not none and config.scale_placement != "after"
        self.out_side = not none and config.scale_placement != "before"
        self.shared_in = self.in_side and config.scale_sharing == "shared"
        self.branch_in = self.in_side and config.scale_sharing == "branch"
        self.dual_norm = config.scale_placement == "dual_norm"
        self.none = none
        self.param = config.scale_param
        self.eps = config.rms_norm_eps

    def vector(self, size, present):
        return ScaleVector(size, self.param) if present else None


def gamma(vector):
    return None if vector is None else vector()


def branch(x, linear, gamma_in, gamma_out, axes, norm_group=None):
    """One linear map after a Pre-Norm with its scale vectors: W(γ_b⊙x), γ_a⊙(Wx) or γ_a⊙Norm(W(γ_b⊙x))."""
    if gamma_in is not None:
        x = x * gamma_in
    y = linear(x)
    if axes.dual_norm:
        y = rms_norm(y, axes.eps, norm_group)
    return y if gamma_out is None else y * gamma_out


class PreNorm(nn.Module):
    """What one Pre-Norm computes, γ included (the Block's or the model's vector, None for none), with the rival
    arms' own parameters: pre_affine's λ, SeeDNorm's α and β, GatedNorm's W_down and W_up, DyT's and Derf's scalars
    and bias. `depth` is the layer from 1 (0: the final norm, which LayerNorm Scaling leaves unscaled)."""

    def __init__(self, config, axes, depth):
        super().__init__()
        d, kind = config.hidden_size, config.norm_kind
        self.kind, self.eps = kind, axes.eps
        self.depth_factor = depth ** -0.5 if kind == "ln_scaling" and depth > 0 else 1.0
        if kind == "pre_affine":
            self.affine = ScaleVector(d, axes.param)
        if kind == "seednorm":
            self.alpha, self.beta = nn.Parameter(torch.zeros(d)), nn.Parameter(torch.zeros(d))
        if kind == "gated":
            self.down = nn.Linear(d, config.gate_rank, bias=False)
            self.up = nn.Linear(config.gate_rank, d, bias=False)
        if kind in ("dyt", "derf"):
            self.alpha = nn.Parameter(torch.ones(1))
            self.shift = nn.Parameter(torch.zeros(1)) if kind == "derf" else None
            self.bias = nn.Parameter(torch.zeros(d))

    def forward(self, h, gamma_):
        g = 1.0 if gamma_ is None else gamma_
        if self.kind == "dyt":
            return g * torch.tanh(self.alpha * h) + self.bias
        if self.kind == "derf":
            return g * torch.erf(self.alpha * h + self.shift) + self.bias
        if self.kind == "pre_affine":
            return rms_norm(h * self.affine(), self.eps) * g
        x = rms_norm(h, self.eps)
        if self.kind == "seednorm":
            return x * (torch.tanh(h @ self.beta).unsqueeze(-1) * self.alpha + g)
        if self.kind == "gated":
            u = x * g
            return u * torch.sigmoid(self.up(F.silu(self.down(u))))
        return x * self.depth_factor * g  # rms, peri_ln, ln_scaling


def rope(x, theta):
    """Rotary embedding on [B, T, H, hd], rotate-half convention (as LlamaForCausalLM)."""
    T, hd = x.shape[1], x.shape[-1]
    inv_freq = theta ** (-torch.arange(0, hd, 2, dtype=torch.float64, device=x.device) / hd)
    angles = torch.outer(torch.arange(T, dtype=torch.float64, device=x.device), inv_freq)
    angles = torch.cat([angles, angles], -1).unsqueeze(1)  # [T, 1, hd]
    cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)
    half = hd // 2
    rotated = torch.cat([-x[..., half:], x[..., :half]], -1)
    return x * cos + rotated * sin


class Attention(nn.Module):
    def __init__(self, config, axes):
        super().__init__()
        d, H, Hkv = config.hidden_size, config.num_attention_heads, config.num_key_value_heads
        self.H, self.Hkv, self.hd, self.theta = H, Hkv, d // H, config.rope_theta
        self.axes, self.qk_norm, self.dnp_per_head = axes, config.qk_norm, config.dnp_per_head
        self.wq = nn.Linear(d, H * self.hd, bias=False)
        self.wk = nn.Linear(d, Hkv * self.hd, bias=False)
        self.wv = nn.Linear(d, Hkv * self.hd, bias=False)
        self.wo = nn.Linear(H * self.hd, d, bias=False)
        self.q_in, self.k_in, self.v_in = (axes.vector(d, axes.branch_in) for _ in range(3))
        self.q_out = axes.vector(H * self.hd, axes.out_side)
        self.k_out = axes.vector(Hkv * self.hd, axes.out_side)
        self.v_out = axes.vector(Hkv * self.hd, axes.out_side)
        self.q_norm = axes.vector(self.hd, config.qk_norm and not axes.none)
        self.k_norm = axes.vector(self.hd, config.qk_norm and not axes.none)

    def forward(self, x):
        B, T, _ = x.shape
        head_group = self.hd if self.dnp_per_head else None
        q = branch(x, self.wq, gamma(self.q_in), gamma(self.q_out), self.axes, head_group)
        k = branch(x, self.wk, gamma(self.k_in), gamma(self.k_out), self.axes, head_group)
        v = branch(x, self.wv, gamma(self.v_in), gamma(self.v_out), self.axes)
        q, k, v = q.view(B, T, self.H, self.hd), k.view(B, T, self.Hkv, self.hd), v.view(B, T, self.Hkv, self.hd)
        if self.qk_norm:  # QK-norm: an RMSNorm per head, with one γ of head_dim entries shared by every head
            q, k = rms_norm(q, self.axes.eps), rms_norm(k, self.axes.eps)
            if self.q_norm is not None:
                q, k = q * self.q_norm(), k * self.k_norm()
        q, k = rope(q, self.theta).transpose(1, 2), rope(k, self.theta).transpose(1, 2)
        v = v.transpose(1, 2)
        if self.Hkv != self.H:  # grouped-query attention: head h reads key/value head h // (H / Hkv)
            k = k.repeat_interleave(self.H // self.Hkv, 1)
            v = v.repeat_interleave(self.H // self.Hkv, 1)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.wo(y.transpose(1, 2).reshape(B, T, self.H * self.hd))


class FeedForward(nn.Module):
    """SwiGLU: down(SiLU(gate branch) ⊙ up branch). Under MoE its γ_b are the layer's, shared by every expert."""

    def __init__(self, config, axes, width, own_inputs=True):
        super().__init__()
        d = config.hidden_size
        self.axes = axes
        self.gate = nn.Linear(d, width, bias=False)
        self.up = nn.Linear(d, width, bias=False)
        self.down = nn.Linear(width, d, bias=False)
        self.gate_in = axes.vector(d, own_inputs and axes.branch_in)
        self.up_in = axes.vector(d, own_inputs and axes.branch_in)
        self.gate_out = axes.vector(width, axes.out_side)
        self.up_out = axes.vector(width, axes.out_side)

    def forward(self, x, gate_in=None, up_in=None):
        gate_in = gamma(self.gate_in) if gate_in is None else gate_in
        up_in = gamma(self.up_in) if up_in is None else up_in
        a = branch(x, self.gate, gate_in, gamma(self.gate_out), self.axes)
        b = branch(x, self.up, up_in, gamma(self.up_out), self.axes)
        return self.down(F.silu(a) * b)


class MixtureOfExperts(nn.Module):
    """Top-k token-choice routing over SwiGLU experts (OLMoE): the top-k probabilities weight the experts' outputs
    as they are, not renormalised; the router runs in float32."""

    def __init__(self, config, axes):
        super().__init__()
        d, E = config.hidden_size, config.num_experts
        self.top_k = config.num_experts_per_tok
        self.router = nn.Linear(d, E, bias=False)
        self.router_in = axes.vector(d, axes.branch_in and config.router_scale)
        self.gate_in = axes.vector(d, axes.branch_in)
        self.up_in = axes.vector(d, axes.branch_in)
        self.experts = nn.ModuleList(FeedForward(config, axes, config.intermediate_size, own_inputs=False)
                                     for _ in range(E))

    def forward(self, x):
        shape, d = x.shape, x.shape[-1]
        xf = x.reshape(-1, d)
        w = self.router.weight.float()
        if self.router_in is not None:
            w = w * self.router_in().float()
        probs = F.softmax(F.linear(xf.float(), w), -1)
        top_p, top_i = probs.topk(self.top_k, -1)
        out = torch.zeros_like(xf)
        gate_in, up_in = gamma(self.gate_in), gamma(self.up_in)
        for e, expert in enumerate(self.experts):
            token, slot = (top_i == e).nonzero(as_tuple=True)
            if token.numel():
                y = expert(xf[token], gate_in, up_in)
                out = out.index_add(0, token, (y * top_p[token, slot].unsqueeze(1)).to(out.dtype))
        return out.view(shape)


class Block(nn.Module):
    def __init__(self, config, axes, depth):
        super().__init__()
        d = config.hidden_size
        self.eps = config.rms_norm_eps
        self.attn_norm = axes.vector(d, axes.shared_in)  # one γ for q, k and v: the usual Pre-Norm weight
        self.attn_prenorm = PreNorm(config, axes, depth)
        self.attn = Attention(config, axes)
        self.ffn_norm = axes.vector(d, axes.shared_in)   # one γ for gate, up (and the router under MoE)
        self.ffn_prenorm = PreNorm(config, axes, depth)
        if config.num_experts > 0:
            self.ffn = MixtureOfExperts(config, axes)
        else:
            self.ffn = FeedForward(config, axes, config.intermediate_size)
        # Peri-LN: γ_out ⊙ n(·) on each block's output before the residual add.
        peri = config.norm_kind == "peri_ln"
        self.attn_out_norm, self.ffn_out_norm = axes.vector(d, peri), axes.vector(d, peri)

    def output(self, y, out_norm):
        return y if out_norm is None else rms_norm(y, self.eps) * out_norm()

    def forward(self, h):
        h = h + self.output(self.attn(self.attn_prenorm(h, gamma(self.attn_norm))), self.attn_out_norm)
        return h + self.output(self.ffn(self.ffn_prenorm(h, gamma(self.ffn_norm))), self.ffn_out_norm)


class GammalabModel(nn.Module):
    def __init__(self, config):
        super().__init__()
        axes = Axes(config)
        self.eps = config.rms_norm_eps
        self.tok_embeddings = nn.Embedding(config.vocab_size, config.hidden_size)
        self.layers = nn.ModuleList(Block(config, axes, l + 1) for l in range(config.num_hidden_layers))
        self.norm = axes.vector(config.hidden_size, not axes.none)  # γ of the final norm, before lm_head
        self.final_prenorm = PreNorm(config, axes, 0)

    def forward(self, input_ids):
        h = self.tok_embeddings(input_ids)
        for layer in self.layers:
            h = layer(h)
        return self.final_prenorm(h, gamma(self.norm))


class GammalabPreTrainedModel(PreTrainedModel):
    config_class = GammalabConfig
    base_model_prefix = "model"
    _no_split_modules = ["Block"]

    def _init_weights(self, module):
        # Only for weights a checkpoint lacks; an export holds every one. The trainer's own scheme is in
        # worker/trainer/model/param_init.h.
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, std=0.02)


class GammalabForCausalLM(GammalabPreTrainedModel, GenerationMixin):
    def __init__(self, config):
        super().__init__(config)
        self.model = GammalabModel(config)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        self.post_init()

    def get_input_embeddings(self):
        return self.model.tok_embeddings

    def forward(self, input_ids, attention_mask=None, labels=None, **kwargs):
        # attention_mask: causal attention over the whole (unpadded) sequence; left padding is not supported.
        logits = self.lm_head(self.model(input_ids))
        loss = None
        if labels is not None:  # the next-token convention of transformers: labels are the inputs, shifted here
            loss = F.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]).float(), labels[:, 1:].reshape(-1))
        return CausalLMOutputWithPast(loss=loss, logits=logits)

    def prepare_inputs_for_generation(self, input_ids, **kwargs):
        # No key/value cache: every generation step reads the whole sequence (a reference, not a server).
        return {"input_ids": input_ids}
