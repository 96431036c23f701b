"""Entry script of the abdev_import_own_<k> rules: the user's own prediction files of one
score batch copied as they are, each atomically, once every file's header has been checked
(the score job validates the rest and names the user's file in its errors).

A file whose first line is not an abdev prediction table's header (another delimiter, a link
to /etc/passwd, a binary) is never copied: its one-line error stands where its copy would be,
and the score job reports it as not scored beside the batch's valid files
(scievals.abdev.own_header). A file the score job refuses for its rows has its copy
replaced by its error there (scievals.abdev.score), so nothing of a refused file stays."""

import logging
import shutil
import sys

# This workflow's own package first, even when another copy of scievals is installed.
sys.path.insert(0, snakemake.scriptdir)

from scievals.abdev.own_header import check_own_header
from scievals.common.entry import run
from scievals.common.errors import ScievalsError
from scievals.common.io import atomic_path
from scievals.common.table_files import write_not_scored


def copy_own(smk):
    refused = {}
    for user in smk.input.user:
        try:
            check_own_header(user)
        except ScievalsError as exc:
            refused[user] = exc
    for user, copy in zip(smk.input.user, smk.output.predictions, strict=True):
        if user in refused:
            logging.getLogger("scievals").error("%s (not copied)", refused[user].one_line())
            write_not_scored(copy, refused[user])
            continue
        with atomic_path(copy) as tmp:
            shutil.copyfile(user, tmp)


run(snakemake, copy_own)
