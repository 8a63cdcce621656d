"""Tiny offline models for the model-backed verifier tests: a BPE tokenizer trained here with `tokenizers`, and
random Qwen2 (PRM with the Qwen2ForProcessRewardModel head layout), Llama (causal LM: Math-Shepherd PRM, judge,
policy) and BERT (NLI cross-encoder) checkpoints saved to a session tmp dir. Nothing comes from a model hub."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

HIDDEN = 32

CORPUS = [
    "Janet has 16 eggs. She eats 3 and bakes with 4. 16 - 3 - 4 = 9 eggs. She sells them for 2 dollars each.",
    "Step 1: 9 * 2 = 18 dollars. ки\nStep 2: The answer is 18. ки",
    "Is step 2 correct? Answer yes or no. Answer: yes. Answer: no. Yes No",
    "The answer is 12. #### 12 \\boxed{12} + - = * / ( ) 0 1 2 3 4 5 6 7 8 9",
    "Tom has 3 boxes of 4 pens. 3 * 4 = 12 pens. He gives away 5, so 12 - 5 = 7 pens are left.",
    "Premise: the last step. Hypothesis: The answer is 7. entailment neutral contradiction",
]

CHAT_TEMPLATE = ("{% for m in messages %}<|{{ m['role'] }}|>\n{{ m['content'] }}\n{% endfor %}"
                 "{% if add_generation_prompt %}<|assistant|>\n{% endif %}")


def _train_tokenizer():
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    specials = ["<pad>", "<s>", "</s>", "<extra_0>", "[CLS]", "[SEP]"]
    trainer = trainers.BpeTrainer(vocab_size=420, special_tokens=specials,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(CORPUS * 30, trainer)
    return tok, PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>", pad_token="<pad>",
                                        additional_special_tokens=["<extra_0>"])


@pytest.fixture(scope="session")
def model_root(tmp_path_factory):
    return tmp_path_factory.mktemp("tiny_models")


@pytest.fixture(scope="session")
def tiny_tokenizer():
    return _train_tokenizer()[1]


def _llama_config(vocab: int, **kw):
    from transformers import LlamaConfig

    return LlamaConfig(vocab_size=vocab, hidden_size=HIDDEN, intermediate_size=2 * HIDDEN, num_hidden_layers=2,
                       num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=1024,
                       pad_token_id=0, bos_token_id=1, eos_token_id=2, **kw)


@pytest.fixture(scope="session")
def llama_dir(model_root, tiny_tokenizer):
    """A random LlamaForCausalLM (the Math-Shepherd PRM / judge / policy architecture) with its tokenizer."""
    import torch
    from transformers import LlamaForCausalLM

    torch.manual_seed(0)
    path = model_root / "llama"
    model = LlamaForCausalLM(_llama_config(len(tiny_tokenizer)))
    model.save_pretrained(path)
    tiny_tokenizer.save_pretrained(path)
    return str(path)


@pytest.fixture(scope="session")
def llama_chat_dir(model_root, tiny_tokenizer, llama_dir):
    """The same Llama with a chat template on its tokenizer (the judge's chat path)."""
    import shutil

    path = model_root / "llama_chat"
    shutil.copytree(llama_dir, path)
    tiny_tokenizer.chat_template = CHAT_TEMPLATE
    tiny_tokenizer.save_pretrained(path)
    tiny_tokenizer.chat_template = None
    return str(path)


def save_qwen_prm(path, tokenizer, *, seed=0, head_bias=None, chat_template=None, linear_head=False):
    """A random Qwen2 PRM laid out like Qwen2.5-Math-PRM-7B: `model.*` backbone + `score.0/score.2` MLP head,
    architectures=["Qwen2ForProcessRewardModel"] with an auto_map to remote code (which we never run)."""
    import torch
    from safetensors.torch import save_file
    from transformers import Qwen2Config, Qwen2Model

    torch.manual_seed(seed)
    config = Qwen2Config(vocab_size=len(tokenizer), hidden_size=HIDDEN, intermediate_size=2 * HIDDEN,
                         num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                         max_position_embeddings=1024, num_labels=2, pad_token_id=0)
    config.architectures = ["Qwen2ForProcessRewardModel"]
    config.auto_map = {"AutoModel": "modeling_qwen2_rm.Qwen2ForProcessRewardModel"}
    base = Qwen2Model(config)
    if linear_head:
        head = torch.nn.Sequential(torch.nn.Linear(HIDDEN, 2))
    else:
        head = torch.nn.Sequential(torch.nn.Linear(HIDDEN, HIDDEN), torch.nn.ReLU(), torch.nn.Linear(HIDDEN, 2))
    if head_bias is not None:
        with torch.no_grad():
            head[-1].weight.zero_()
            head[-1].bias.copy_(torch.tensor(head_bias))
    state = {f"model.{k}": v.contiguous() for k, v in base.state_dict().items()}
    for k, v in head.state_dict().items():  # "0.weight" -> score.0.weight (MLP) or score.weight (linear)
        state["score." + (k.split(".", 1)[1] if linear_head else k)] = v.contiguous()
    path.mkdir(parents=True, exist_ok=True)
    save_file(state, str(path / "model.safetensors"), metadata={"format": "pt"})
    config.save_pretrained(path)
    tokenizer.chat_template = chat_template
    tokenizer.save_pretrained(path)
    tokenizer.chat_template = None
    return str(path)


@pytest.fixture(scope="session")
def make_qwen_prm(tiny_tokenizer):
    """``make_qwen_prm(path, **options)``: save a tiny Qwen PRM (see :func:`save_qwen_prm`) with the tokenizer."""
    return lambda path, **options: save_qwen_prm(path, tiny_tokenizer, **options)


@pytest.fixture(scope="session")
def chat_template():
    return CHAT_TEMPLATE


@pytest.fixture(scope="session")
def qwen_prm_dir(model_root, tiny_tokenizer):
    return save_qwen_prm(model_root / "qwen_prm", tiny_tokenizer)


@pytest.fixture(scope="session")
def bert_nli_dir(model_root):
    """A random BertForSequenceClassification with MNLI-style labels and a [CLS] A [SEP] B [SEP] tokenizer."""
    import torch
    from tokenizers import processors
    from transformers import BertConfig, BertForSequenceClassification, PreTrainedTokenizerFast

    raw, _ = _train_tokenizer()
    raw.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", raw.token_to_id("[CLS]")), ("[SEP]", raw.token_to_id("[SEP]"))])
    tok = PreTrainedTokenizerFast(tokenizer_object=raw, cls_token="[CLS]", sep_token="[SEP]", pad_token="<pad>")
    torch.manual_seed(0)
    config = BertConfig(vocab_size=len(tok), hidden_size=HIDDEN, intermediate_size=2 * HIDDEN, num_hidden_layers=2,
                        num_attention_heads=4, max_position_embeddings=512, type_vocab_size=2, pad_token_id=0,
                        id2label={0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"},
                        label2id={"CONTRADICTION": 0, "NEUTRAL": 1, "ENTAILMENT": 2})
    path = model_root / "bert_nli"
    BertForSequenceClassification(config).save_pretrained(path)
    tok.save_pretrained(path)
    return str(path)


@pytest.fixture()
def simple_trace():
    from rewards.parsing.trace import Trace

    return Trace("Tom has 3 boxes of 4 pens. He gives away 5.",
                 ("3 * 4 = 12 pens.", "12 - 5 = 7 pens are left."), "7", "gsm8k")
