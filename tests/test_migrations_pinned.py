"""Released migrations are frozen: the schema each one leaves is pinned here.

Every project file is trusted by comparing its schema with the one today's migrations
build (``store/trust.py``). Editing a released migration therefore changes what every
existing project is compared with: all of them would be refused as changed by another
program. A schema change is always a new migration appended at the end of
``store/schema.py``; when one is added, pin the schema it leaves below (the failure message
prints the value)."""

from __future__ import annotations

import hashlib

from sqlite_utils import Database

from sense7_coder.store import schema

#: migration -> sha256 of the schema (``sqlite_master``, in a stable order) after it ran
PINNED = {
    "m001_initial": "bb6ef5adfb529c2832793d1952bfa6d9752316533465ea1aa1d005943ef59d65",
    "m002_sentences": "51718357ee5bf28da87317211aa808dafbbb140009864257a3b36b9dab1ab958",
    "m003_predictions": "7e312b637383aff731d8cdf80cff0dd478defb344bcfeb36efb8ccec76365ca1",
    "m004_untyped_values": "602deb24784617508b730e238be2fa21f7a6578a736a05447130f32fed7f5952",
    "m005_team_workflow": "807d86595c39102f847fc4a34dc3eaba1d33fee2a5e61bf6be148f80076e2ba8",
    "m006_prediction_runs": "22f1c893e6cf3ce67bb5a65bb83c0e176076737ab32e46a0633389cb7ffdb5ee",
    "m007_covering_reads": "fe6fef4947300f85b0e9e3f1dc06bae76d56a7b87bdd64883224a4b187d31b4b",
    "m008_identity_history": "d2e5fe31dd338e93121034c604bdc7d57eddb875deb760ff1adb15000503c161",
    "m009_provenance": "1b3ee56b4521aded221d64425a962569bd5cdb886709bb9483b2dde902cf29e3",
    "m010_suggestions": "0b61e8d0394fd1b40f9ecbd13f5002d0cea5f9781b5bab08b51122df55790758",
    "m011_spans": "418457190cc49111564b8bec9d918b3c7df4a4922525699a8d394194f0fff74b",
    "m012_attributes": "22a0c2e62bb3f7bc051570384e4df62a5dc20bc846656ef5f33eb0908469b8d0",
    "m013_coder_windows": "69bb388b63497fba678605f6cf21738181c109cbe70c0596d5ccbea5bdb3f652",
    "m014_history_append_only": "d2fced26ef84d8699348dcd63383362ca07d84b902b20f2a752562e240c62856",
    "m015_study_settings": "39215b26b7cd3bbcc14d92351afb0773bbbb92ccd62e4e4ef33072f9ba6c953d",
    "m016_codebook_versions": "85f52bbf7d43f4db52a47670db2b5ec6284805b2d80afe858dc4dfdbd27e4579",
    "m017_rounds": "99b60e72ebd05b437428ad9cc9e22b7b26abc5db3c55166b869c6479199bc76c",
    "m018_value_rationales": "7b0fde9cfb09eee1c1c315f19c93409df94f42c7b4c90f2dff36889f6a43e373",
    "m019_team_sync": "f4d1a989fc8c5e11f81e19ab149fdf94b4a3a5bf8df04bda35900b107dfacc41",
}


def _schemas() -> list[tuple[str, str]]:
    """Each migration's name and the digest of the schema it leaves, applied in order."""
    db = Database(memory=True)
    out = []
    for migration in schema.migrations._migrations:
        with db.conn:
            migration.fn(db)
        rows = db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master "
                          "ORDER BY type, name").fetchall()
        digest = hashlib.sha256(repr(rows).encode("utf-8")).hexdigest()
        out.append((migration.name, digest))
    return out


def test_every_released_migration_leaves_the_schema_it_was_released_with() -> None:
    found = _schemas()
    names = [name for name, _ in found]
    assert names[:len(PINNED)] == list(PINNED), (
        "released migrations were renamed, removed or reordered; every existing project "
        "records their names and would be refused")
    for name, digest in found:
        assert name in PINNED, (
            f"new migration {name}: pin the schema it leaves in {__file__}: "
            f'"{name}": "{digest}"')
        assert digest == PINNED[name], (
            f"migration {name} was released and now leaves another schema. Existing projects "
            "are checked against the schema today's migrations build, so every one of them "
            "would be refused as changed by another program. Put the change back and add it "
            "as a new migration at the end of store/schema.py")
