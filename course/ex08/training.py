"""The real (tiny) training loop of ex08's real bench and ex10's real trainer, both run by the hidden checks in the grader
(`course_part("ex08", "training.py", ...)`): public, so that a student reads how the real runs train, but loaded by no student process."""

from __future__ import annotations

import torch
from torch import nn


def train_copy_model(model: nn.Module, inputs: torch.Tensor, targets: torch.Tensor, *, batch_size: int, updates: int, lr: float, seed: int) -> dict[str, float]:
    """Adam on cross-entropy over every position, batches drawn with torch.Generator().manual_seed(seed).

    Returns {"final_loss", "grad_norm" (of the last update's gradient), "updates" (done)}.

    Adam is written out (betas 0.9, 0.999, eps 1e-8) because torch.optim's first use imports
    torch._dynamo, which costs about a second in every fresh student process.
    """
    g = torch.Generator().manual_seed(int(seed))
    params = [p for p in model.parameters() if p.requires_grad]
    moments = [(torch.zeros_like(p), torch.zeros_like(p)) for p in params]
    loss, norm, step = torch.tensor(float("nan")), float("nan"), 0
    for step in range(1, int(updates) + 1):
        rows = torch.randint(0, inputs.shape[0], (int(batch_size),), generator=g).to(inputs.device)
        logits = model(inputs[rows])
        loss = nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets[rows].reshape(-1))
        grads = torch.autograd.grad(loss, params)
        norm = torch.sqrt(sum((g * g).sum() for g in grads)).item()
        with torch.no_grad():
            for p, grad, (m, v) in zip(params, grads, moments):
                m.mul_(0.9).add_(grad, alpha=0.1)
                v.mul_(0.999).addcmul_(grad, grad, value=0.001)
                p.sub_(lr * (m / (1 - 0.9**step)) / ((v / (1 - 0.999**step)).sqrt() + 1e-8))
    return {"final_loss": loss.item(), "grad_norm": norm, "updates": step}
