# The configuration of a gammalab model in Hugging Face transformers' custom-code layout: the Llama shape plus
# the scale-vector axes of docs/variants.md (sharing, placement, parameterisation), QK-norm and MoE. Written by
# `gammalab-train export` beside config.json and modeling_gammalab.py; loaded with trust_remote_code=True.
from transformers import PretrainedConfig


class GammalabConfig(PretrainedConfig):
    model_type = "gammalab"

    def __init__(
        self,
        vocab_size=256,
        hidden_size=64,
        intermediate_size=170,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=None,
        max_position_embeddings=128,
        rms_norm_eps=1e-5,
        rope_theta=10000.0,
        # Scale vectors (docs/variants.md, Axes).
        scale_sharing="shared",    # none | shared (one γ per Pre-Norm) | branch (one γ per linear map, HG)
        scale_placement="before",  # before: W(γ_b⊙x) | after: γ_a⊙(Wx) | dual: both | dual_norm: γ_a⊙Norm(W(γ_b⊙x))
        scale_param="plain",       # plain: γ = α | magdir_orig (OR): γ = β·α | magdir_exp (ER): γ = exp(β + α)
        dnp_per_head=False,        # dual_norm's Norm per head for q and k instead of over the whole output
        qk_norm=False,             # RMSNorm per head on q and k before RoPE
        # Mixture of experts (0 experts: a dense SwiGLU FFN).
        num_experts=0,
        num_experts_per_tok=2,
        router_scale=False,        # a γ of its own before the router when each branch has its own γ
        # What each Pre-Norm computes (docs/variants.md, "The 2026 arms"): rms (the paper's) | seednorm | peri_ln |
        # gated | pre_affine | ln_scaling | dyt | derf; gate_rank is GatedNorm's bottleneck.
        norm_kind="rms",
        gate_rank=128,
        tie_word_embeddings=False,
        **kwargs,
    ):
        self.vocab_size = vocab_size
        self.hidden_size = hidden_size
        self.intermediate_size = intermediate_size
        self.num_hidden_layers = num_hidden_layers
        self.num_attention_heads = num_attention_heads
        self.num_key_value_heads = num_key_value_heads or num_attention_heads
        self.max_position_embeddings = max_position_embeddings
        self.rms_norm_eps = rms_norm_eps
        self.rope_theta = rope_theta
        self.scale_sharing = scale_sharing
        self.scale_placement = scale_placement
        self.scale_param = scale_param
        self.dnp_per_head = dnp_per_head
        self.qk_norm = qk_norm
        self.num_experts = num_experts
        self.num_experts_per_tok = num_experts_per_tok
        self.router_scale = router_scale
        self.norm_kind = norm_kind
        self.gate_rank = gate_rank
        super().__init__(tie_word_embeddings=tie_word_embeddings, **kwargs)
