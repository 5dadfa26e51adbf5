// Every registered form is a pair (tether/model/form.h): a spec half and a numeric half of
// the same form, found by its name, with a catalog model that reduces in every algebraic mode
// the formulation accepts.
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "tether/model/form.h"
#include "tether/model/registry.h"
#include "tether/reduce/formulation.h"
#include "tether/reduce/reduced_model.h"

namespace tether::reduce {
namespace {

TEST(FormRegistry, EveryFormHasBothHalvesAndIsFoundByItsName) {
  std::set<std::string> names;
  for (const model::FormSpec* spec : model::FormSpecs()) {
    const std::string name(spec->name());
    EXPECT_TRUE(names.insert(name).second) << "two forms are named " << name;
    EXPECT_EQ(&model::SpecOf(spec->form()), spec) << name;
    EXPECT_EQ(model::FormFromName(name), spec->form()) << name;
    EXPECT_EQ(model::FormName(spec->form()), name);
    EXPECT_EQ(FormulationOf(spec->form()).form(), spec->form()) << name;
    EXPECT_FALSE(spec->variables_field().empty()) << name;
  }
  EXPECT_FALSE(model::FormFromName("index3").has_value());  // an alias is no name
}

// The capability lists in messages name the forms that have the capability, and only them.
TEST(FormRegistry, CapabilityListsNameTheFormsThatHaveThem) {
  EXPECT_EQ(FormsWith(&Formulation::has_mass_metric), "mechanical");
  EXPECT_EQ(FormsWith(&Formulation::supports_baumgarte), "mechanical");
  EXPECT_EQ(model::InequalityFormsText(), "form 'index1'");
}

// A catalog model of each form reduces, and its reduced model's states are the model's.
TEST(FormRegistry, ACatalogModelOfEveryFormReduces) {
  model::ModelRegistry registry;
  ASSERT_TRUE(registry.LoadBuiltinCatalog().empty());
  std::set<model::Form> reduced;
  for (const auto& entry : registry.List()) {
    const std::shared_ptr<const model::Model> m = entry.model;
    ReduceResult result = ReducedModel::Build(m, ReduceOptions{});
    ASSERT_TRUE(result.reduced) << m->name << ": " << result.error;
    EXPECT_EQ(result.reduced->num_states(), m->num_states()) << m->name;
    EXPECT_EQ(m->states().size(), m->state_roles().size()) << m->name;
    reduced.insert(m->form);
  }
  EXPECT_EQ(reduced.size(), model::FormSpecs().size());
}

}  // namespace
}  // namespace tether::reduce
