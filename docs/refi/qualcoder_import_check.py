"""Run QualCoder's own REFI-QDA project importer (its source, unmodified) on a .qdpx,
offscreen, with a stub application object, and print what its database then holds.

Usage: python qualcoder_import_check.py FILE.qdpx WORK_FOLDER QUALCODER_SRC (PyQt6 installed;
QualCoder's helpers module is replaced by a stub so that its media libraries are not needed)."""
import json, os, re, shutil, sqlite3, sys, types
os.environ["QT_QPA_PLATFORM"] = "offscreen"
QC_SRC = sys.argv[3]  # the src folder of a QualCoder checkout
sys.path.insert(0, QC_SRC)
helpers = types.ModuleType("qualcoder.helpers")
class Message:
    def __init__(self, *a, **k): self.a = a
    def exec(self): print("MESSAGE:", self.a[1:3]); return 0
helpers.Message = Message
sys.modules["qualcoder.helpers"] = helpers
from PyQt6 import QtWidgets
qapp = QtWidgets.QApplication([])
from qualcoder import refi
qdpx, work = sys.argv[1], sys.argv[2]
kind = "qdc" if qdpx.lower().endswith(".qdc") else "qdpx"
shutil.rmtree(work, ignore_errors=True); os.makedirs(work + "/proj/documents")
src = open(os.path.join(QC_SRC, "qualcoder", "__main__.py")).read()
body = src[src.index('"CREATE TABLE project ('):src.index("CREATE TABLE files_filter")]
conn = sqlite3.connect(work + "/proj/data.qda")
for stmt in re.findall(r'execute\(\s*((?:"[^"]*"\s*)+)\)', "cur.execute(\n" + body):
    sql = "".join(re.findall(r'"([^"]*)"', stmt))
    if sql.startswith("CREATE TABLE"):
        conn.execute(sql)
class App: pass
app = App(); app.conn = conn; app.project_path = work + "/proj"
app.write_config_ini = lambda *a, **k: None; app.ai_models = []
app.settings = {"codername": "default", "directory": work, "ai_enable": "False"}
copy = work + "/in." + kind; shutil.copy(qdpx, copy)
QtWidgets.QFileDialog.getOpenFileName = staticmethod(lambda *a, **k: (copy, True))
class Log:
    lines = []
    def append(self, s): self.lines.append(str(s))
log = Log()
try:
    refi.RefiImport(app, log, kind)
    print("IMPORT: finished")
except Exception as e:
    import traceback; traceback.print_exc(); print("IMPORT: aborted:", type(e).__name__, e)
q = lambda s: conn.execute(s).fetchall()
print("sources", q("select count(*) from source"))
print("categories", q("select count(*) from code_cat"), "codes", q("select count(*) from code_name"))
print("code_text", q("select count(*) from code_text"), "no code", q("select count(*) from code_text where cid is null"))
print("owners", q("select owner, count(*) from code_text group by owner"))
print("coding memos", q("select count(*) from code_text where memo != ''"), "annotations", q("select count(*) from annotation"))
print("attributes", q("select count(distinct name) from attribute"))
print("dup lines", [l for l in log.lines if "Duplicated" in l][:3], len([l for l in log.lines if "Duplicated" in l]))
