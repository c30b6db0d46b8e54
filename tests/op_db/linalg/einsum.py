"""Specs for the ops of ``retrograd._ops.linalg.einsum``: einsum."""
from .._spec import OpSpec, S, T


SPECS = [
    OpSpec("einsum", [S("ij,jk->ik", T((2, 3)), T((3, 4))), S("ii->i", T((3, 3))), S("ii", T((3, 3))),
                      S("ij->", T((2, 3))), S("i,j->ij", T((2,)), T((3,))),
                      S("bij,bjk->bik", T((2, 2, 3)), T((2, 3, 2))),
                      S("...ij,...jk", T((2, 2, 3)), T((3, 2))), S("ij,jk,kl->il", T((2, 3)), T((3, 2)), T((2, 2))),
                      S("ij,ij->i", T((2, 3)), T((2, 3))), S("bn,anm,bm->ba", T((2, 3)), T((2, 3, 2)), T((2, 2))),
                      S("ij,jk->ik", T((2, 1)), T((3, 4))), S("iij->j", T((2, 2, 3))), S("ji", T((2, 3)))],
           call=lambda lib, eq, *ops: lib.einsum(eq, *ops), check_grad_fn=False,
           note="grad_fn differs: PyTorch lowers einsum to permute/bmm/sum; ours is one EinsumBackward0"),
    OpSpec("einsum_sublist", [S(T((2, 3)), T((3, 4)))], torch_name="einsum",
           call=lambda lib, a, b: lib.einsum(a, [0, 1], b, [1, 2], [0, 2]), check_grad_fn=False,
           note="alias of einsum"),
]
