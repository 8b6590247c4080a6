// The serdiff subject: serdiff's own optimized serializer (serialize/) behind the harness's seam.
#include "differential/subject.h"

#include "serialize/codec.h"

namespace serdiff::subject {

const char* name() { return "serdiff"; }

const model::CodecTable& codec_table() { return optimized::codec_table(); }

const Divergences& divergences()
{
    static const Divergences none;
    return none;
}

}  // namespace serdiff::subject
